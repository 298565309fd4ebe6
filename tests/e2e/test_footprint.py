"""What a recording keeps loaded: the libraries that only plots need stay out
(render/plot/cairo_library.h; their cost is in docs/performance.md), and so do those only the
exporter needs (src/http/http_module_api.h)."""
import os
import tempfile

from harness import GpuwatchTestCase


def mapped_files(pid):
    with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as f:
        return {line.split()[-1] for line in f if "/" in line}


class FootprintTest(GpuwatchTestCase):
    def test_record_does_not_load_cairo_and_plot_does(self):
        p = self.start_gw("record", "--no-summary", "--interval", "0.1", "--", "sleep", "1.5")
        try:
            self.wait_for(lambda: any("libnvidia-ml" in m for m in mapped_files(p.pid)), what="NVML loaded")
            loaded = mapped_files(p.pid)
        finally:
            _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assertFalse([m for m in loaded if "libcairo" in os.path.basename(m)], sorted(loaded))
        # Nor the exporter's HTTP module and what it links (src/http/http_module_api.h).
        self.assertFalse([m for m in loaded if any(lib in os.path.basename(m) for lib in
                                                   ("libgpuwatch-http", "libmicrohttpd", "libgnutls"))],
                         sorted(loaded))
        # ... and the picture is still drawn, through the library loaded on demand.
        out = os.path.join(tempfile.mkdtemp(dir=self.tmp), "run.png")
        r = self.run_gw("plot", "last", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(os.path.getsize(out), 1000)
