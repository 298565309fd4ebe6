"""record --on-hang against a fake hung 2-GPU job (issue 23): GPU 0 waits in a collective (100 %
utilization, SMs 19 % active, NVLink silent), GPU 1 idle, both holding their memory."""
import json
import os
import re
import select
import signal
import time
import urllib.request

from harness import GpuwatchTestCase, QUICK
from test_exporter import parse, value

HUNG = QUICK + (";gpu_count=2;gpm=1;gpu*.mem_used_mib=20000;gpu*.pcie_tx_kbs=0;gpu*.pcie_rx_kbs=0"
                ";gpu0.util=100;gpu0.sm_active=19;gpu1.util=0;gpu1.sm_active=0")
# The same GPUs with NVLink moving: slow, not hung.
ALIVE = HUNG + ";gpu0.nvlink_tx_mibs=20000;gpu0.nvlink_rx_mibs=20000"


class OnHang(GpuwatchTestCase):
    def hang_config(self):
        return self.advisor_config("window_s = 2\nwarmup_s = 1\nhang_after_s = 2\n")

    def record(self, *args, scenario=HUNG, timeout=40):
        return self.run_gw("record", "--interval", "0.1", "--no-summary", "--check-interval", "0.3",
                           "--advisor-config", self.hang_config(), *args, scenario=scenario, timeout=timeout)

    def test_kill_stops_a_hung_job_with_its_own_exit_code(self):
        started = time.monotonic()
        r = self.record("--advise", "--on-hang", "kill", "--after", "1", "--", "sleep", "60")
        self.assertEqual(r.returncode, 76, r.stderr)
        self.assertLess(time.monotonic() - started, 30)
        self.assertIn("[critical] job.hung: no progress for", r.stderr)
        self.assertIn("GPU 0 wait in a collective", r.stderr)
        self.assertIn("for GPU 1, idle: the job is hung", r.stderr)
        self.assertIn("gpuwatch: stopping the command: the job is hung (job.hung for", r.stderr)
        report = self.report()
        self.assertEqual(report["run"]["end_reason"], "hung")
        self.assertEqual(report["run"]["exit_signal"], 15)
        hung = [e for e in report["events"] if e["kind"] == "hung"]
        self.assertEqual(len(hung), 1, report["events"])
        self.assertIn("stopped by --on-hang kill: job.hung for", hung[0]["message"])
        self.assertRegex(self.run_gw("runs").stdout, r"stopped: hung")

    def test_signal_is_sent_once_per_hang_and_the_command_goes_on(self):
        dumped = os.path.join(self.tmp, "dumped")
        # Traps USR1 as a job that dumps its stacks would; runs 8 s, then exits 0 on its own.
        script = f'trap "echo dumped >> {dumped}" USR1; i=0; while [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done'
        r = self.record("--on-hang", "signal=USR1", "--", "sh", "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the job is hung: sending SIGUSR1 to the command", r.stderr)
        with open(dumped) as f:
            self.assertEqual(f.read().splitlines(), ["dumped"])  # once, not every check
        events = [e for e in self.report()["events"] if e["kind"] == "hung"]
        self.assertEqual(len(events), 1)
        self.assertIn("SIGUSR1 sent by --on-hang", events[0]["message"])
        self.assertEqual(self.report()["run"]["end_reason"], "exited")

    def test_a_slow_job_with_nvlink_moving_is_not_hung(self):
        r = self.record("--advise", "--on-hang", "kill", "--after", "1", "--", "sleep", "6", scenario=ALIVE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("job.hung", r.stderr)
        self.assertNotIn("stopping the command", r.stderr)

    def test_status_says_the_job_is_hung(self):
        self.record("--on-hang", "kill", "--after", "1", "--", "sleep", "60")
        r = self.run_gw("status", "last", "--format", "json", "--advisor-config", self.hang_config())
        self.assertEqual(r.returncode, 0, r.stderr)
        status = json.loads(r.stdout)
        # The root cause first, with the next action; what it explains after it.
        first = status["advisories"][0]
        self.assertEqual((first["id"], first["severity"], first["action"]), ("job.hung", "critical", "restart_hung_job"),
                         r.stdout)
        self.assertIn({"id": "util.collective_wait", "gpu": 0}, first["explains"])

    def test_the_exporter_publishes_a_series_an_alert_can_key_on(self):
        rec = self.start_gw("record", "--interval", "0.1", "--no-summary", "--", "sleep", "60", scenario=HUNG)
        self.addCleanup(lambda: (os.killpg(rec.pid, signal.SIGTERM), rec.communicate(timeout=30)))
        self.wait_for(lambda: os.path.exists(self.store), what="the run's store")
        exporter = self.start_gw("exporter", "--listen", "127.0.0.1:0", "--interval", "0.2", "--advisor-config",
                                 self.hang_config(), scenario=HUNG)
        self.addCleanup(lambda: (exporter.kill(), exporter.communicate(timeout=10)))
        ready, _, _ = select.select([exporter.stdout], [], [], 5)
        self.assertTrue(ready, "no URL printed within 5 s")
        port = re.search(r"http://[0-9.]+:(\d+)/metrics", exporter.stdout.readline()).group(1)
        deadline = time.monotonic() + 30
        found = None
        while found is None and time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                found = value(parse(r.read().decode()), "gpuwatch_run_advisory", id="job.hung", severity="critical",
                              gpu="")
            time.sleep(0.2)
        self.assertEqual(found, 1)

    def test_bad_values_are_usage_errors(self):
        for args, words in [(["--on-hang", "stop"], "expected kill or signal=NAME"),
                            (["--on-hang", "signal=FOO"], "'FOO' is not a signal"),
                            (["--on-hang", "signal=KILL"], "use `--on-hang kill`"),
                            (["--on-hang", "kill"], "kill needs --after S"),
                            (["--on-hang", "signal=USR1", "--after", "3"], "--after"),
                            ]:
            r = self.run_gw("record", *args, "--", "true")
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(words, r.stderr, args)
        r = self.run_gw("record", "--on-hang", "signal=USR1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("needs a command", r.stderr)
        self.assertIn("exits 76", self.run_gw("record", "--help").stdout)
