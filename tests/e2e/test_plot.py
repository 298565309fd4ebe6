"""plot: every kind in every format from recorded runs, and its usage errors."""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

from harness import BIN, FAKE_NVML, FIXTURES, QUICK, GpuwatchTestCase

KINDS = ["timeline", "per-gpu", "balance", "compare", "histogram"]
MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".svg": b"<?xml", ".pdf": b"%PDF-"}
GPU0_BLUE = (0x00, 0x72, 0xB2)  # the first colour of the palette (render/plot/style.cpp)


def read_png(path):
    """(width, height, rows of RGB tuples) of a non-interlaced 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == MAGIC[".png"]
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
        elif kind == b"IDAT":
            idat += body
    bpp = 4 if color == 6 else 3
    raw, rows, prev, i = zlib.decompress(idat), [], bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + width * bpp])
        i += 1 + width * bpp
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def record(store, name, scenario, seconds):
    env = dict(os.environ, GPUWATCH_STORE=store, GPUWATCH_NVML_LIBRARY=FAKE_NVML, FAKE_NVML_SET=scenario)
    env.pop("FAKE_NVML_SCENARIO", None)
    r = subprocess.run([BIN, "record", "--interval", "0.05", "--no-summary", "--name", name, "--", "sleep",
                        str(seconds)], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


class Plot(GpuwatchTestCase):
    @classmethod
    def setUpClass(cls):
        # Two runs shared by every test (recording is the slow part): four
        # GPUs, one lost half-way (an event), and two GPUs busy then idle.
        cls.shared = tempfile.mkdtemp(prefix="gpuwatch-plot-e2e-")
        cls.shared_store = os.path.join(cls.shared, "runs.db")
        record(cls.shared_store, "four", QUICK + ";gpu_count=4;gpu0.util=100;gpu1.util=busy:1,idle:1;"
               "gpu*.mem_used_mib=ramp:0:30000:1;gpu3.lost_after_s=1", 2)
        record(cls.shared_store, "two", QUICK + ";gpu_count=2;gpu*.util=60", 1.5)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.shared, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.store = self.shared_store

    def plot(self, *args):
        return self.run_gw("plot", *args)

    def test_every_kind_in_every_format(self):
        for kind in KINDS:
            runs = ["four", "two"] if kind == "compare" else ["four"]
            for ext, magic in MAGIC.items():
                out = os.path.join(self.tmp, f"{kind}{ext}")
                r = self.plot(*runs, "--kind", kind, "-o", out)
                self.assertEqual(r.returncode, 0, f"{kind}{ext}: {r.stderr}")
                self.assertEqual(r.stdout, "")
                with open(out, "rb") as f:
                    head = f.read(len(magic))
                self.assertEqual(head, magic, f"{kind}{ext}")
                self.assertGreater(os.path.getsize(out), 5000, f"{kind}{ext}")
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(f"{k}{e}" for k in KINDS for e in MAGIC))

    def test_the_png_shows_the_data(self):
        out = os.path.join(self.tmp, "t.png")
        r = self.plot("four", "-o", out, "--width", "900", "--height", "1000")
        self.assertEqual(r.returncode, 0, r.stderr)
        width, height, rows = read_png(out)
        self.assertEqual((width, height), (900, 1000))
        # GPU 0's line is somewhere, and the picture is not all white.
        blue = sum(row.count(GPU0_BLUE) for row in rows)
        self.assertGreater(blue, 200)
        self.assertTrue(any(px != (255, 255, 255) for px in rows[height // 2]))

    def test_default_kind_and_size(self):
        one = os.path.join(self.tmp, "one.png")
        two = os.path.join(self.tmp, "two.png")
        self.assertEqual(self.plot("four", "-o", one).returncode, 0)
        self.assertEqual(self.plot("four", "two", "-o", two).returncode, 0)
        with open(one, "rb") as f:
            self.assertEqual(struct.unpack(">II", f.read(24)[16:24]), (1600, 1400))  # timeline
        with open(two, "rb") as f:
            self.assertEqual(struct.unpack(">II", f.read(24)[16:24]), (1600, 1100))  # compare

    def test_metric_choice(self):
        for kind, metric in [("per-gpu", "power_watts"), ("histogram", "temp_gpu_celsius"),
                             ("compare", "sm_clock_mhz"), ("per-gpu", "fan_percent")]:
            runs = ["four", "two"] if kind == "compare" else ["four"]
            r = self.plot(*runs, "--kind", kind, "--metric", metric, "-o", os.path.join(self.tmp, "m.svg"))
            self.assertEqual(r.returncode, 0, f"{kind} {metric}: {r.stderr}")

    def test_usage_errors_exit_2_and_write_nothing(self):
        out = os.path.join(self.tmp, "x.png")
        cases = [
            (["four", "-o", os.path.join(self.tmp, "x.jpg")], ".png, .svg or .pdf"),
            (["four", "two", "--kind", "timeline", "-o", out], "exactly one run"),
            (["four", "--kind", "compare", "-o", out], "two or more runs"),
            (["four", "--kind", "balance", "--metric", "power_watts", "-o", out], "takes no metric"),
            (["four", "--metric", "clock_event_reasons", "--kind", "per-gpu", "-o", out], "--metric"),
            (["four", "--kind", "pie", "-o", out], "--kind"),
            (["four", "--width", "10", "-o", out], "--width"),
            (["four"], "--output"),
            (["four", "--align", "step", "-o", out], "only compare aligns runs"),
            (["four", "two", "--align", "loss", "-o", out], "--align"),
        ]
        for args, message in cases:
            r = self.plot(*args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_runs_that_cannot_be_drawn_exit_1(self):
        r = self.plot("nope", "-o", os.path.join(self.tmp, "x.png"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no run matches 'nope'", r.stderr)
        r = self.plot("four", "-o", os.path.join(self.tmp, "missing-dir", "x.png"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing-dir", r.stderr)
        # A run recorded without any GPU (no driver): a clear error, no file.
        store = os.path.join(self.tmp, "hostonly.db")
        env_store = dict(GPUWATCH_STORE=store)
        r = self.run_gw("record", "--interval", "0.1", "--no-summary", "--name", "host", "--", "sleep", "0.3",
                        library="/nonexistent/libnvidia-ml.so.1", **env_store)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_gw("plot", "host", "-o", os.path.join(self.tmp, "h.png"), **env_store)
        self.assertEqual(r.returncode, 1)
        self.assertIn("has no GPU samples to plot", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "h.png")))
        # Runs recorded without annotations cannot be aligned by step: said, no file.
        r = self.plot("four", "two", "--align", "step", "-o", os.path.join(self.tmp, "s.png"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("has no step annotations to align by", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "s.png")))

    def test_a_file_plots_as_a_stored_run_does(self):
        # RUN as a file to import: every kind, and compared with a stored run.
        path = os.path.join(FIXTURES, "import", "gputop_a10g_multi_gpu.json")
        for kind in KINDS:
            runs = [path, "two"] if kind == "compare" else [path]
            out = os.path.join(self.tmp, f"{kind}.png")
            r = self.plot(*runs, "--kind", kind, "-o", out)
            self.assertEqual(r.returncode, 0, f"{kind}: {r.stderr}")
            self.assertGreater(os.path.getsize(out), 5000, kind)

    def test_help(self):
        r = self.plot("--help")
        self.assertEqual(r.returncode, 0)
        for word in KINDS + ["--metric", "--width", "--height", "--store", "--title", "--align"]:
            self.assertIn(word, r.stdout)
