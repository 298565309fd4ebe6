"""gpuwatch status: the verdict an agent polls, on live and finished runs."""
import json
import os
import sys
import time

from harness import GpuwatchTestCase, QUICK

UNDERUSED = QUICK + ";gpu_count=1;gpu0.util=20;gpu0.mem_used_mib=2048"


class Status(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        self.state = os.path.join(self.tmp, "state")
        self.conf = self.advisor_config("window_s = 1\nwarmup_s = 0.5\n")

    def status(self, *args, **kw):
        r = self.run_gw("status", *args, "--advisor-config", self.conf, XDG_STATE_HOME=self.state, **kw)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def test_finished_run_text_and_json(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--name", "small-batch", "--",
                        "sleep", "2.5", scenario=UNDERUSED)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = json.loads(self.status("small-batch", "--format", "json").stdout)
        self.assertFalse(s["live"])
        self.assertEqual(s["run"]["name"], "small-batch")
        self.assertEqual(s["verdict"], "warning")
        self.assertEqual(s["window_s"], 1)
        gpu = s["gpus"][0]
        self.assertAlmostEqual(gpu["now"]["util_percent"], 20)
        self.assertAlmostEqual(gpu["now"]["mem_used_bytes"], 2048 * 2**20)
        # The first check compares with the window before: same levels, so no change.
        self.assertAlmostEqual(gpu["before"]["util_percent"], 20)
        self.assertAlmostEqual(s["reference_end_ago_s"], 1, delta=0.01)
        ids = {a["id"] for a in s["advisories"]}
        self.assertIn("memory.batch_too_small", ids)
        # util.low, or util.host_bound when this machine's CPUs are busy (a parallel build).
        self.assertTrue(ids & {"util.low", "util.host_bound"}, ids)
        text = self.status("small-batch").stdout
        self.assertRegex(text, r"Run [0-9a-f]{12} \(small-batch\)  finished, .* verdict: warning")
        self.assertRegex(text, r"\[(warning|info)\] memory\.batch_too_small GPU 0")  # info when host-bound

    def test_live_run_and_the_change_since_the_last_check(self):
        script = ("import time, gpuwatch\n"
                  "for i in range(1, 400):\n"
                  "    gpuwatch.step(i)\n"
                  "    time.sleep(0.02)\n")
        p = self.start_gw("record", "--interval", "0.05", "--no-summary", "--", sys.executable, "-c", script,
                          scenario=UNDERUSED, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
        try:
            time.sleep(2.5)
            first_sent = time.monotonic()
            first = json.loads(self.status("--format", "json").stdout)
            first_back = time.monotonic()
            time.sleep(2.0)
            second_sent = time.monotonic()
            second = json.loads(self.status("--format", "json").stdout)
            second_back = time.monotonic()
        finally:
            p.communicate(timeout=30)
        self.assertTrue(first["live"])
        self.assertEqual(first["run"]["status"], "recording")
        # The second check is compared with the first: as far apart as the two
        # calls were, however slowly a busy machine ran them, give or take the
        # store's lag (committed once a second); steps advanced.
        lag_s = 1.2
        self.assertGreaterEqual(second["reference_end_ago_s"], second_sent - first_back - lag_s)
        self.assertLessEqual(second["reference_end_ago_s"], second_back - first_sent + lag_s)
        self.assertGreater(second["training"]["now"]["step"], second["training"]["before"]["step"])
        self.assertGreater(second["training"]["steps_per_second"], 10)
        done = json.loads(self.status("--format", "json", "--no-remember").stdout)
        self.assertFalse(done["live"])

    def test_since_and_files_and_errors(self):
        self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "2.5", scenario=UNDERUSED)
        s = json.loads(self.status("--format", "json", "--since", "0.5").stdout)
        self.assertAlmostEqual(s["reference_end_ago_s"], 0.5, delta=0.01)
        export = os.path.join(self.tmp, "run.json")
        self.assertEqual(self.run_gw("export", "last", "--format", "jsonl", "-o", export).returncode, 0)
        s = json.loads(self.status(export, "--format", "json").stdout)
        self.assertEqual(s["gpus"][0]["gpu"], 0)
        # Only the stored run is remembered; a file has no identity to remember it by.
        self.assertEqual(len(os.listdir(os.path.join(self.state, "gpuwatch", "status"))), 1)
        r = self.run_gw("status", "no-such-run")
        self.assertEqual(r.returncode, 1)
        self.assertIn("gpuwatch: error:", r.stderr)
        r = self.run_gw("status", "--window", "0")
        self.assertEqual(r.returncode, 2)

    def test_print_advisor_config_reads_back(self):
        r = self.status("--print-advisor-config", "--model-size", "large")
        self.assertIn("window_s = 1", r.stdout)
        self.assertIn("model_size = large", r.stdout)
        again = os.path.join(self.tmp, "again.conf")
        with open(again, "w") as f:
            f.write(r.stdout)
        r2 = self.run_gw("status", "--print-advisor-config", "--advisor-config", again)
        self.assertEqual(r2.stdout, r.stdout)
