"""gpuwatch top: one snapshot for scripts (--once, text and JSON), and the live screen in a real
terminal (tmux) against the fake driver: layouts, keys, the kill confirmation, resize, a lost GPU,
no driver, and the terminal given back on q and on SIGTERM."""
import getpass
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from harness import BIN, FAKE_NVML, QUICK, GpuwatchTestCase, tree, write_advisor_config
from tmux_terminal import TmuxTerminal, write_script

GiB = 1024 ** 3


TRAINING = ("import time\n"
            "for step in range(1, 3000):\n"
            "    print(f'epoch {1 + step // 20} step {step} loss {1 / step:.4f}', flush=True)\n"
            "    time.sleep(0.05)\n")
EPOCH_REGEX = r"epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)"
UNDERUSED = "gpu_count=2;gpu0.util=20;gpu0.mem_used_mib=2048"


def start_training_stand_in(tmp):
    """A process the fake driver will list on a GPU: its pid, name and owner are real."""
    script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write("import time\ntime.sleep(300)\n")
    return subprocess.Popen(["python3", script, "--epochs", "3"], start_new_session=True)


class TopOnce(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        self.proc = start_training_stand_in(self.tmp)

    def tearDown(self):
        self.proc.kill()
        self.proc.wait()
        super().tearDown()

    def scenario(self, gpus=2):
        return (f"{QUICK};gpu_count={gpus};gpu1.processes={self.proc.pid}:{3 * GiB};gpu1.util=77;gpu*.temp_c=48;"
                f"gpu1.process_util={self.proc.pid}:64")

    def test_json_has_every_gpu_its_metrics_and_the_process_with_its_owner(self):
        r = self.run_gw("top", "--once", "--format", "json", scenario=self.scenario())
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["schema_version"], 2)
        self.assertEqual([g["gpu"] for g in doc["gpus"]], [0, 1])
        gpu1 = doc["gpus"][1]
        self.assertEqual(gpu1["metrics"]["gpu_util_percent"], 77)
        self.assertEqual(gpu1["metrics"]["temp_gpu_celsius"], 48)
        self.assertEqual(gpu1["metrics"]["mem_total_bytes"], 81559 * 1024 * 1024)
        self.assertLess(gpu1["ages_seconds"]["temp_gpu_celsius"], 5)
        procs = [p for p in doc["processes"] if p["pid"] == self.proc.pid]
        self.assertEqual(len(procs), 1, doc["processes"])
        p = procs[0]
        self.assertEqual(p["gpu"], 1)
        self.assertEqual(p["gpu_memory_bytes"], 3 * GiB)
        self.assertEqual(p["gpu_percent"], 64)  # the driver's per-process share of the SMs
        self.assertEqual(p["user"], getpass.getuser())
        self.assertIn("train.py --epochs 3", p["command"])
        self.assertIsNotNone(p["rss_bytes"])
        self.assertIsNotNone(p["cpu_percent"])  # sampled over a second, as top -b
        self.assertIsNotNone(doc["host"]["cpu_percent"])
        self.assertEqual(len(doc["host"]["core_percent"]), os.cpu_count())

    def test_text_fits_the_size_asked_for(self):
        r = self.run_gw("top", "--once", "--width", "80", "--height", "24", scenario=self.scenario(4))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.split("\n")[:-1]
        self.assertLessEqual(len(lines), 24, r.stdout)
        self.assertTrue(all(len(line) <= 80 for line in lines), r.stdout)
        for text in ["gpuwatch top", "4 GPUs", "GPU 0", "GPU 3", "PID", str(self.proc.pid), " 64 "]:
            self.assertIn(text, r.stdout)

    def test_once_prints_the_content_alone_at_the_interval_given(self):
        # Issue 22 item 20: 22 blank padding lines, the interactive keys, and "every 0.5 s" for --interval 2.
        for args, every, least_s in ([], "every 1 s", 0.9), (["--interval", "2"], "every 2 s", 1.9), \
                (["--interval", "0.2", "--height", "40"], "every 0.2 s", 0.9):
            with self.subTest(args=args):
                started = time.monotonic()
                r = self.run_gw("top", "--once", "--width", "100", *args, scenario=self.scenario(2))
                took_s = time.monotonic() - started
                self.assertEqual(r.returncode, 0, r.stderr)
                lines = r.stdout.split("\n")[:-1]
                self.assertIn(every, lines[0])
                self.assertNotIn("q quit", r.stdout)
                self.assertNotIn("0-9 GPU", r.stdout)
                self.assertIn(str(self.proc.pid), lines[-1], r.stdout)  # the process table ends it: no padding
                self.assertGreaterEqual(took_s, least_s)  # sampled over the interval, or a second

    def test_owner_column_and_attribution_from_the_cgroup_files(self):
        # tests/fixtures/procfs/cgroup_owners (its README names each layout's source).
        scenario = (f"{QUICK};gpu_count=2;gpu0.processes=5101:{4 * GiB},5102:{3 * GiB},5199:{GiB};"
                    f"gpu1.processes=5104:{2 * GiB},5106:{GiB}")
        owners = tree("procfs/cgroup_owners")
        r = self.run_gw("top", "--once", "--format", "json", scenario=scenario, GPUWATCH_PROCFS_ROOT=owners)
        self.assertEqual(r.returncode, 0, r.stderr)
        by_pid = {p["pid"]: p for p in json.loads(r.stdout)["processes"]}
        self.assertEqual(by_pid[5102]["attribution"], {
            "job": "1240", "step": "0", "array_job": "1233", "array_task": "7", "slurm_job": "1233_7.0",
            "container": None, "container_short": None, "container_runtime": None, "pod_uid": None, "qos": None,
            "unit": None})
        pod = by_pid[5104]["attribution"]
        self.assertEqual((pod["pod_uid"], pod["qos"], pod["container_short"], pod["container_runtime"]),
                         ("11111111-2222-3333-4444-555555555555", "Guaranteed", "9b2c4e6f8a0b", "containerd"))
        self.assertEqual(by_pid[5106]["attribution"]["qos"], "BestEffort")
        self.assertFalse(by_pid[5199]["other_pid_namespace"])  # on the host: gone
        text = self.run_gw("top", "--once", "--width", "120", "--height", "40", scenario=scenario,
                           GPUWATCH_PROCFS_ROOT=owners)
        self.assertEqual(text.returncode, 0, text.stderr)
        rows = {line.split()[0]: line for line in text.stdout.split("\n") if line.split()[:1] in
                (["5101"], ["5102"], ["5104"], ["5106"], ["5199"])}
        self.assertIn("OWNER", text.stdout)
        self.assertIn(" 1234.0 ", rows["5101"])
        self.assertIn(" 1233_7.0 ", rows["5102"])
        self.assertIn(" 9b2c4e6f8a0b ", rows["5104"])
        self.assertIn(" 5e6f7a8b9c0d ", rows["5106"])
        self.assertIn("(not in /proc here)", rows["5199"])
        # gpuwatch in a container's PID namespace: the host's pid is out of sight, not gone.
        inside = self.run_gw("top", "--once", "--width", "120", scenario=f"{QUICK};gpu0.processes=73421:{GiB}",
                             GPUWATCH_PROCFS_ROOT=tree("procfs/pid_namespace"))
        self.assertIn("(other PID namespace)", inside.stdout, inside.stderr)

    def test_owner_rows_group_the_fixture_processes(self):
        # tests/fixtures/procfs/cgroup_owners: Slurm v1 (job 1234's step 0 and batch step) and v2 (array
        # task 1233_7's ranks 0 and 1), Docker (two processes of one container, systemd driver; one with
        # the cgroupfs driver on v1), Kubernetes Guaranteed (containerd), Burstable (CRI-O) and BestEffort
        # (cgroupfs) pods, a systemd unit, two processes of no owner (user 999) and a pid not in /proc.
        MiB = 1024 ** 2
        scenario = (f"{QUICK};gpu_count=2;"
                    f"gpu0.processes=5101:{4 * GiB},5109:{GiB},5102:{3 * GiB},5107:{512 * MiB},5108:{256 * MiB},"
                    f"5199:{64 * MiB};gpu0.process_util=5101:60,5109:5,5102:70;"
                    f"gpu1.processes=5110:{3 * GiB},5103:{2 * GiB},5112:{1536 * MiB},5104:{2560 * MiB},"
                    f"5105:{1536 * MiB},5106:{GiB},5111:{768 * MiB},5113:{128 * MiB};"
                    f"gpu1.process_util=5110:72,5103:40,5112:10,5104:30,5105:20")
        owners_tree = tree("procfs/cgroup_owners")

        def user(uid):  # the tree's uids, named as this machine's passwd names them
            try:
                return pwd.getpwuid(uid).pw_name
            except KeyError:
                return str(uid)

        def group(owner, kind, pids, gpus, uids, memory, util, runtime=None, pod=None, qos=None):
            return {"owner": owner, "kind": kind, "container_runtime": runtime, "pod_uid": pod, "qos": qos,
                    "processes": len(pids), "pids": pids, "gpus": gpus, "users": sorted({user(u) for u in uids}),
                    "gpu_memory_bytes": memory, "gpu_util_percent_sum": util}

        want = [
            group("1233_7", "slurm_job", [5102, 5110], [0, 1], [1001], 6 * GiB, 142),
            group("1234", "slurm_job", [5101, 5109], [0], [1000], 5 * GiB, 65),
            group("3f4e1b2c5d6a", "container", [5103, 5112], [1], [0], 3584 * MiB, 50, "docker"),
            group("9b2c4e6f8a0b", "container", [5104], [1], [0], 2560 * MiB, 30, "containerd",
                  "11111111-2222-3333-4444-555555555555", "Guaranteed"),
            group("c0ffee112233", "container", [5105], [1], [0], 1536 * MiB, 20, "crio",
                  "0a1b2c3d-4e5f-6789-abcd-ef0123456789", "Burstable"),
            group("5e6f7a8b9c0d", "container", [5106], [1], [0], GiB, 0, None,
                  "fedcba98-7654-3210-fedc-ba9876543210", "BestEffort"),
            group("a7c3e5f1b2d4", "container", [5111], [1], [0], 768 * MiB, 0, "docker"),
            group("app-blender-42.scope", "unit", [5107], [0], [1000], 512 * MiB, 0),
            group(user(999), "user", [5108, 5113], [0, 1], [999], 384 * MiB, 0),
            group(None, "unknown", [5199], [0], [], 64 * MiB, 0),
        ]
        r = self.run_gw("top", "--once", "--format", "json", scenario=scenario, GPUWATCH_PROCFS_ROOT=owners_tree)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["schema_version"], 2)
        got = doc["owners"]
        # CPU: the tree's counters stand still, so 0 once a process was read twice (the driver's list
        # comes from the slow thread: on a busy machine its first reading may be the last).
        for g in got:
            self.assertIn(g.pop("cpu_percent_sum"), (0, None), g)
        self.assertEqual(got, want)
        self.assertEqual(len(doc["processes"]), 14)  # the process rows are all there too

        text = self.run_gw("top", "--once", "--group-by", "owner", "--width", "120", scenario=scenario,
                           GPUWATCH_PROCFS_ROOT=owners_tree)
        self.assertEqual(text.returncode, 0, text.stderr)
        lines = text.stdout.split("\n")[:-1]
        self.assertIn("by owner  sort: GPU memory", lines[0])
        header = next(i for i, line in enumerate(lines) if line.startswith("OWNER "))
        self.assertEqual(lines[header].rstrip(),
                         "OWNER                KIND      PROCS   GPU MEM  GPU%   CPU% GPUS     USERS")
        cells = {"1233_7": "1233_7", "1234": "1234", "user": user(999), "unknown": "(not in /proc)"}

        def row(g):
            gpus = ",".join(str(x) for x in g["gpus"])
            memory = f"{g['gpu_memory_bytes'] / GiB:.2f} GiB" if g["gpu_memory_bytes"] >= GiB \
                else f"{g['gpu_memory_bytes'] / MiB:.1f} MiB"
            owner = g["owner"] if g["kind"] not in ("user", "unknown") else cells[g["kind"]]
            return (f"{owner:<20} {g['kind']:<9} {g['processes']:>5} {memory:>9} {g['gpu_util_percent_sum']:>5} "
                    f"{'CPU':>6} {gpus:<8} {','.join(g['users']) or '–'}")

        shown = [line[:53] + "   CPU" + line[59:] if line[53:59] in ("   0.0", "     –") else line
                 for line in lines[header + 1:]]
        self.assertEqual(shown, [row(g) for g in want])
        bad = self.run_gw("top", "--once", "--group-by", "job")
        self.assertEqual(bad.returncode, 2, bad.stderr)

    def test_gpus_limits_what_is_shown(self):
        r = self.run_gw("top", "--once", "--format", "json", "--gpus", "1", scenario=self.scenario(4))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([g["gpu"] for g in json.loads(r.stdout)["gpus"]], [1])

    def test_without_a_driver_it_shows_the_host_and_says_why(self):
        r = self.run_gw("top", "--once", "--format", "json", library="/nonexistent/libnvidia-ml.so.1")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["gpus"], [])
        self.assertTrue(doc["notes"], doc)
        self.assertIsNotNone(doc["host"]["mem_total_bytes"])

    def test_bad_input_is_a_usage_error(self):
        for args in (["--interval", "0.01"], ["--format", "json"], ["--once", "--format", "yaml"],
                     ["--once", "--width", "5"]):
            r = self.run_gw("top", *args)
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
        r = self.run_gw("top", "--once", "--gpus", "7")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no GPU 7", r.stderr)

    def test_a_recording_run_is_shown_with_its_progress_and_advisories(self):
        scenario = QUICK + ";" + UNDERUSED
        rec = self.start_gw("record", "--name", "resnet", "--interval", "0.1", "--no-summary", "--annotate-regex",
                            EPOCH_REGEX, "--", "python3", "-c", TRAINING, scenario=scenario)
        try:
            conf = self.advisor_config("window_s = 1\nwarmup_s = 0.5\n")

            def run_once():
                return json.loads(self.run_gw("top", "--once", "--format", "json", "--advisor-config", conf,
                                              scenario=scenario).stdout)["run"]

            # Steps are stored at most once a second, epochs when they change: epoch 2 may be
            # stored while the step stored last is still 1.
            def in_epoch_2():
                training = (run_once() or {}).get("training") or {}
                return int(training.get("epoch") or 0) >= 2 and (training.get("step") or 0) > 20

            self.wait_for(in_epoch_2, timeout=30, what="epoch 2 and step 21")
            run = run_once()
            self.assertEqual((run["name"], run["status"], run["live"]), ("resnet", "recording", True))
            self.assertGreaterEqual(int(run["training"]["epoch"]), 2)
            self.assertGreater(run["training"]["step"], 20)
            self.assertIsNotNone(run["training"]["loss"])
            self.assertIn("memory.batch_too_small", {a["id"] for a in run["advisories"]})
            text = self.run_gw("top", "--once", "--width", "100", "--advisor-config", conf, scenario=scenario).stdout
            self.assertRegex(text, r"run resnet [0-9a-f]{12}  recording .*verdict: warning")
            self.assertIn("warning GPU 0: memory", text)
            r = self.run_gw("top", "--once", "--format", "json", "--no-run", scenario=scenario)
            self.assertIsNone(json.loads(r.stdout)["run"])
        finally:
            os.killpg(rec.pid, signal.SIGTERM)
            rec.communicate(timeout=30)
        # Nothing recording now: no run unless one is named.
        self.assertIsNone(json.loads(self.run_gw("top", "--once", "--format", "json").stdout)["run"])
        named = json.loads(self.run_gw("top", "--once", "--format", "json", "--run", "resnet").stdout)["run"]
        self.assertEqual(named["name"], "resnet")
        self.assertFalse(named["live"])
        r = self.run_gw("top", "--once", "--run", "no-such-run")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no-such-run", r.stderr)

    def test_not_on_a_terminal_it_says_to_use_once(self):
        r = self.run_gw("top", timeout=20)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--once", r.stderr)


@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed (scripts/install-deps.sh --tests)")
class TopOnATerminal(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpuwatch-e2e-top-")
        self.proc = start_training_stand_in(self.tmp)
        self.term = None

    def tearDown(self):
        if self.term:
            self.term.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, width, height, scenario, args="", term=None):
        self.term = TmuxTerminal(self.tmp, f"gw-top-{os.getpid()}", width, height)
        env = {"GPUWATCH_NVML_LIBRARY": FAKE_NVML, "FAKE_NVML_SET": QUICK + ";" + scenario, "LANG": "C.UTF-8",
               "GPUWATCH_STORE": os.path.join(self.tmp, "runs.db")}
        if term:
            env["TERM"] = term
        script = os.path.join(self.tmp, "top.sh")
        write_script(script, env, f"{shlex.quote(BIN)} top {args or '--interval 0.2'}")
        self.term.run_script(script)

    def wait(self, predicate, what):
        return self.term.wait_for(self, predicate, what)

    def shows(self, text):
        return lambda rows: any(text in r for r in rows)

    def test_panels_keys_kill_and_quit(self):
        self.start(80, 24, f"gpu_count=4;gpu2.processes={self.proc.pid}:{2 * GiB}")
        rows = self.wait(self.shows(str(self.proc.pid)), "the process on GPU 2")
        self.assertTrue(rows[0].startswith("gpuwatch top"), rows)
        for g in range(4):
            self.assertTrue(any(r.startswith(f"GPU {g}") for r in rows), rows)
        self.assertTrue(rows[23].startswith("q quit"), rows)
        self.term.keys("2")  # focus GPU 2 alone
        self.wait(lambda rows: not any(r.startswith("GPU 0") for r in rows), "GPU 2 alone")
        self.term.keys("Escape")
        self.wait(lambda rows: any(r.startswith("GPU 0") for r in rows), "all GPUs again")
        self.term.keys("s")
        self.wait(self.shows("sort: GPU use"), "the next sort")
        self.term.keys("o")  # a row per owner: the stand-in's (its unit, or its user)
        self.wait(self.shows("OWNER                KIND      PROCS"), "the owner rows")
        self.wait(self.shows("by owner  sort: GPU use"), "the header saying so")
        self.term.keys("o")
        self.wait(self.shows(f"{self.proc.pid} "), "the process rows again")
        self.term.keys("h")
        self.wait(self.shows("then offers SIGKILL"), "the help")
        self.term.keys("x")
        self.wait(lambda rows: not any("then offers SIGKILL" in r for r in rows), "the help closed")
        self.term.keys("+")
        self.wait(self.shows("every 0.5 s"), "a longer interval")
        self.term.keys("k")
        self.wait(self.shows(f"send SIGTERM to pid {self.proc.pid}"), "the kill question")
        self.assertIsNone(self.proc.poll())  # nothing sent before the answer
        self.term.keys("y")
        self.wait(self.shows(f"sent SIGTERM to pid {self.proc.pid}"), "the answer")
        self.assertEqual(self.proc.wait(timeout=10), -signal.SIGTERM)
        self.term.keys("q")
        rows = self.wait(self.shows("EXIT 0"), "top to quit")
        self.assertFalse(any("gpuwatch top" in r for r in rows), rows)  # the screen was given back

    def test_one_gpu_fills_each_screen_with_graphs_with_axes_and_the_filter_narrows_the_list(self):
        # Issue 26: at 200x50 one GPU left 35 of 50 rows empty, the graphs had no axes, and there was
        # no / filter. The exact screens are the unit tests' goldens (tests/fixtures/top).
        self.start(80, 24, f"gpu_count=1;gpu0.processes={self.proc.pid}:{2 * GiB};gpu0.util=97")
        for width, height in [(80, 24), (120, 40), (200, 50)]:
            if width != 80:
                self.term.resize(width, height)
            # Drawn for this size: the keys on its last row.
            rows = self.wait(lambda rows: len(rows) >= height and rows[height - 1].startswith("q quit")
                             and any(r.rstrip().endswith("now") for r in rows)
                             and any("100%┤" in r for r in rows) and any(str(self.proc.pid) in r for r in rows),
                             f"graphs with axes at {width}x{height}")
            rows = rows[:height]
            self.assertTrue(rows[0].startswith("gpuwatch top"), rows)
            self.assertLessEqual(sum(1 for r in rows if not r.strip()), 3, "\n".join(rows))
            self.assertTrue(any("  0%┤" in r for r in rows), rows)
        self.term.keys("/")
        self.wait(self.shows("filter: _"), "the filter prompt")
        self.term.keys("-l", "no-such-command")
        self.wait(self.shows('no process on a watched GPU matches "no-such-command"'), "the list narrowed")
        self.term.keys("Enter")
        self.wait(self.shows("filter: no-such-command  sort:"), "the filter in the header")
        self.term.keys("Escape")
        self.wait(self.shows(f"{self.proc.pid} "), "every process again")
        self.term.keys("q")
        self.wait(self.shows("EXIT 0"), "top to quit")

    def test_each_gpu_has_its_colour_and_values_their_severity(self):
        # Issue 26: colours were per metric, and 3 % looked like 97 %. The plots' palette
        # (core/gpu_palette.h) in the 256-colour cube: GPU 0 blue 0x0072B2 -> 25, GPU 1 orange
        # 0xE69F00 -> 178; utilization 3 % yellow (33), 97 % green (32).
        self.start(120, 40, "gpu_count=2;gpu0.util=3;gpu1.util=97", term="xterm-256color")
        rows = self.term.wait_for(self, lambda rows: any("97%" in r for r in rows), "both GPUs' values")
        coloured = "\n".join(self.term.screen_with_colours())

        def drawn_in(colour, text):  # the colour set last before the text (other attributes may follow it)
            return re.search(rf"\x1b\[{colour}m(?:\x1b\[[0-9;]*m)*{re.escape(text)}", coloured) is not None

        self.assertTrue(drawn_in("38;5;25", "GPU 0"), repr(coloured))
        self.assertTrue(drawn_in("38;5;178", "GPU 1"), repr(coloured))
        self.assertTrue(drawn_in("33", "3%"), repr(coloured))
        self.assertTrue(drawn_in("32", "97%"), repr(coloured))
        self.term.keys("q")
        self.wait(self.shows("EXIT 0"), "top to quit")

    def test_a_recording_run_beside_the_gpus_updates_live(self):
        store = os.path.join(self.tmp, "runs.db")
        env = dict(os.environ, GPUWATCH_STORE=store, GPUWATCH_NVML_LIBRARY=FAKE_NVML,
                   FAKE_NVML_SET=QUICK + ";" + UNDERUSED)
        rec = subprocess.Popen([BIN, "record", "--name", "resnet", "--interval", "0.1", "--no-summary",
                                "--annotate-regex", EPOCH_REGEX, "--", "python3", "-c", TRAINING], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            conf = write_advisor_config(os.path.join(self.tmp, "advisor.conf"), "window_s = 1\nwarmup_s = 0.5\n")
            self.start(100, 30, UNDERUSED, args=f"--interval 0.2 --advisor-config {conf}")
            rows = self.wait(self.shows("run resnet"), "the recording run")
            self.wait(self.shows("warning GPU 0: memory"), "its advisory")
            epoch = lambda rows: next((int(r.split()[1]) for r in rows if r.startswith("  epoch ")), 0)
            first = epoch(self.wait(lambda rows: epoch(rows) >= 1, "its epoch"))
            self.wait(lambda rows: epoch(rows) > first, "the next epoch, live")
            self.term.keys("q")
            self.wait(self.shows("EXIT 0"), "top to quit")
        finally:
            os.killpg(rec.pid, signal.SIGTERM)
            rec.wait(timeout=30)

    def test_many_gpus_on_a_small_terminal_then_a_resize(self):
        self.start(80, 20, "gpu_count=16")
        rows = self.wait(self.shows("more GPUs"), "one line per GPU")
        self.assertTrue(any(r.startswith(" 0 H100") for r in rows), rows)
        self.term.resize(200, 50)
        rows = self.wait(self.shows("GPU 15"), "every GPU as a panel after the resize")
        self.assertFalse(any("more GPUs" in r for r in rows), rows)
        self.term.keys("1", "2")  # two digits within a second: GPU 12
        self.wait(lambda rows: any(r.startswith("GPU 12") for r in rows)
                  and not any(r.startswith("GPU 1 ") for r in rows), "GPU 12 alone")
        self.term.keys("C-\\")  # SIGQUIT gives the terminal back too
        rows = self.wait(self.shows("EXIT 0"), "top to end on Ctrl-\\")
        self.assertFalse(any("gpuwatch top" in r for r in rows), rows)

    def test_a_lost_gpu_becomes_a_message_and_sigterm_gives_the_terminal_back(self):
        # A long interval: SIGTERM must act at once, not at the next tick.
        self.start(100, 30, "gpu_count=2;gpu1.lost_after_s=1", args="--interval 10")
        self.wait(self.shows("lost: the driver no longer answers"), "GPU 1 lost")
        self.assertTrue(any(r.startswith("GPU 0") for r in self.term.screen()))
        pids = subprocess.run(["pgrep", "-f", f"{BIN} top"], capture_output=True, text=True).stdout.split()
        self.assertTrue(pids)
        for pid in pids:
            os.kill(int(pid), signal.SIGTERM)
        rows = self.term.wait_for(self, self.shows("EXIT 0"), "top to end on SIGTERM", timeout=5)
        self.assertFalse(any("gpuwatch top" in r for r in rows), rows)


if __name__ == "__main__":
    unittest.main()
