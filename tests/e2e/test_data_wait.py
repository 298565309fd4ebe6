"""The step's own time (issue 23 item 4): the loop's data_wait_s / step_time_s / timed_steps log
messages, stored with the run, shown by report, status, top and serve, and cited word for word by
util.input_bound."""
import json
import os
import re
import select
import sys
import textwrap
import urllib.request

from harness import GpuwatchTestCase, QUICK

# Busy (80 %) with 75 % of its memory: nothing to say but what the loop measures.
SCENARIO = QUICK + ";gpu_count=1;gpu0.util=80;gpu0.mem_used_mib=60000"

# The client's protocol with a bare socket, once a second as the client sends: epoch 1 waits
# 30 % of each step, epoch 2 62 %; 25 steps of 0.04 s per message.
SENDER = textwrap.dedent("""
    import json, os, socket, time
    path = os.environ["GPUWATCH_SOCKET"]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    def send(kind, value):
        s.sendto(json.dumps(dict(kind=kind, value=value, mono_ns=time.monotonic_ns())).encode(), path)
    for epoch, wait, messages in ((1, 0.3, 2), (2, 0.62, 3)):
        send("epoch", epoch)
        for _ in range(messages):
            time.sleep(1.0)
            send("log", {"data_wait_s": wait, "step_time_s": 1.0, "timed_steps": 25})
        send("log", {"loss": 0.5})
    time.sleep(0.3)
""")

SUMMARY = re.compile(r"the training loop waits for data 49\.2 % of each step \(mean step 0\.040 s over \d+ steps\): "
                     r"the GPU waits for its input")


class DataWait(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        self.conf = self.advisor_config("window_s = 2.5\nwarmup_s = 1\n")

    def record(self):
        r = self.run_gw("record", "--name", "starved", "--interval", "0.1", "--advise", "--check-interval", "0.5",
                        "--advisor-config", self.conf, "--", sys.executable, "-c", SENDER, scenario=SCENARIO)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def test_report_status_top_and_serve_show_it_and_the_advisor_cites_it(self):
        r = self.record()
        # The live advisor says it when it appears (epoch 1 waits 30 %: critical too); the end summary
        # gives the finished run's verdict, over the whole run (49.2 %), shortened to a line.
        self.assertRegex(r.stderr, r"gpuwatch advisor:\n\[critical\] util\.input_bound GPU 0: the training loop waits")
        self.assertRegex(r.stderr, r"verdict: critical: util\.input_bound GPU 0\n")
        self.assertIn("training: 2 epochs, data wait 49.2 % of each step, step time 0.040 s (125 steps)\n", r.stderr)
        self.assertIn("[critical] util.input_bound GPU 0: the training loop waits for data 49.2 % of each step", r.stderr)

        rep = self.report()
        timing = rep["training"]["step_timing"]
        self.assertAlmostEqual(timing["data_wait_percent"], (2 * 0.3 + 3 * 0.62) / 5 * 100, places=6)
        self.assertAlmostEqual(timing["step_time_s"], 0.04, places=9)
        self.assertEqual(timing["timed_steps"], 125)
        self.assertEqual([s["name"] for s in rep["training"]["scalars"]], ["loss"])  # not the reserved names
        epochs = {e["label"]: e["step_timing"] for e in rep["epochs"]}
        self.assertAlmostEqual(epochs["1"]["data_wait_percent"], 30, places=6)
        self.assertAlmostEqual(epochs["2"]["data_wait_percent"], 62, places=6)
        self.assertEqual((epochs["1"]["timed_steps"], epochs["2"]["timed_steps"]), (50, 75))
        text = self.run_gw("report", "last").stdout
        self.assertIn("Measured by the loop: data wait 49.2 % of each step, step time 0.040 s (125 steps)", text)
        self.assertRegex(text, r"epoch +gpu +times +duration .* data wait % +step time s")
        self.assertRegex(text, r"\n *2 +0 +1 .* 62\.0 +0\.040\n")

        s = json.loads(self.run_gw("status", "last", "--format", "json", "--advisor-config", self.conf).stdout)
        self.assertAlmostEqual(s["training"]["step_timing"]["data_wait_percent"], 62, places=6)
        self.assertAlmostEqual(s["training"]["step_timing_run"]["data_wait_percent"], 49.2, places=6)
        input_bound = [a for a in s["advisories"] if a["id"] == "util.input_bound"]
        self.assertEqual(len(input_bound), 1, s["advisories"])
        self.assertRegex(input_bound[0]["summary"], "^" + SUMMARY.pattern + "$")
        self.assertEqual(input_bound[0]["severity"], "critical")
        evidence = {e["name"]: (e["value"], e["unit"]) for e in input_bound[0]["evidence"]}
        # The finished run's verdict is over the whole run: its share, not the window's.
        self.assertAlmostEqual(evidence["data_wait_percent"][0], 49.2, places=6)
        self.assertEqual(evidence["step_time_s"], (0.04, "seconds"))
        text = self.run_gw("status", "last", "--advisor-config", self.conf).stdout
        self.assertRegex(text, r"Measured by the loop: data wait 62\.0 % of each step, step time 0\.040 s \(\d+ steps\); "
                               r"whole run: data wait 49\.2 %")
        self.assertRegex(text, r"\[critical\] util\.input_bound GPU 0: the training loop waits for data 49\.2 %")

        top = self.run_gw("top", "--once", "--run", "last", "--width", "120", scenario=SCENARIO)
        self.assertEqual(top.returncode, 0, top.stderr)
        self.assertRegex(top.stdout, r"data wait \d+\.\d % +step time 0\.040 s")
        top = json.loads(self.run_gw("top", "--once", "--run", "last", "--format", "json", scenario=SCENARIO).stdout)
        self.assertIn("data_wait_percent", top["run"]["training"]["step_timing"])

        serve = self.start_gw("serve", "--listen", "127.0.0.1:0", scenario=SCENARIO)
        try:
            ready, _, _ = select.select([serve.stdout], [], [], 10)
            self.assertTrue(ready, "serve printed no URL")
            base = re.search(r"http://127\.0\.0\.1:\d+", serve.stdout.readline()).group(0)
            with urllib.request.urlopen(base + "/api/runs/last", timeout=30) as answer:
                run = json.loads(answer.read())
            self.assertAlmostEqual(run["step_timing"]["data_wait_percent"], 49.2, places=6)
            self.assertEqual(run["step_timing"]["timed_steps"], 125)
        finally:
            serve.terminate()
            serve.wait(10)

    def test_compare_sets_the_runs_side_by_side(self):
        self.record()
        r = self.run_gw("record", "--name", "plain", "--interval", "0.1", "--no-summary", "--", "sleep", "1.5",
                        scenario=SCENARIO)
        self.assertEqual(r.returncode, 0, r.stderr)
        c = self.run_gw("compare", "starved", "plain", "--span", "full", "--format", "json")
        self.assertEqual(c.returncode, 0, c.stderr)
        runs = json.loads(c.stdout)["runs"]
        self.assertAlmostEqual(runs[0]["step_timing"]["data_wait_percent"], 49.2, places=6)
        self.assertIsNone(runs[1]["step_timing"])
        text = self.run_gw("compare", "starved", "plain", "--span", "full").stdout
        self.assertRegex(text, r"run +data wait % +step time s +steps\n +A +49\.2 +0\.040 +125\n +B +n/a +n/a +0\n")

