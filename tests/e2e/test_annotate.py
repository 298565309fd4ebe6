"""Annotations: what the training tells gpuwatch, over GPUWATCH_SOCKET or in its output."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

from harness import BIN, GpuwatchTestCase, QUICK

# A training stand-in that speaks the wire protocol with a bare socket, so
# that these tests do not depend on the Python client (tested on its own).
SENDER = textwrap.dedent("""
    import json, os, socket, sys, time
    path = os.environ["GPUWATCH_SOCKET"]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setblocking(False)
    def send(kind, value, **extra):
        s.sendto(json.dumps(dict(kind=kind, value=value, mono_ns=time.monotonic_ns(), **extra)).encode(), path)
    send("log", {"model_params": 11689512})
    for epoch in (1, 2):
        send("epoch", epoch)
        send("phase", "train")
        for step in range(50):
            send("step", (epoch - 1) * 50 + step + 1)
            send("log", {"loss": 1.0 / (epoch * 50 + step)})
            time.sleep(0.01)
        send("phase", "val")
        time.sleep(0.3)
        send("phase", None)
        time.sleep(0.2)
    send("mark", "checkpoint saved")
    s.sendto(b"this is not json", path)
""")


class SocketAnnotations(GpuwatchTestCase):
    def test_the_child_gets_a_socket(self):
        r = self.run_gw("record", "--no-summary", "--", "sh", "-c", 'test -S "$GPUWATCH_SOCKET"')
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_annotations_are_stored_on_the_samples_clock(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", sys.executable, "-c", SENDER,
                        scenario=QUICK + ";gpu_count=1;gpu0.util=80")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 message on GPUWATCH_SOCKET was not understood (the first: not valid JSON)", r.stderr)
        rep = self.report()
        self.assertEqual([e["label"] for e in rep["epochs"]], ["1", "2"])
        phases = {p["label"]: p for p in rep["phases"]}
        self.assertEqual(set(phases), {"train", "val"})
        self.assertEqual(phases["val"]["occurrences"], 2)
        self.assertAlmostEqual(phases["val"]["duration_s"], 0.6, delta=0.15)
        marks = [e for e in rep["events"] if e["kind"] == "mark"]
        self.assertEqual([m["message"] for m in marks], ["checkpoint saved"])
        # Steps and losses are summed up, not listed: at most one stored a second.
        self.assertFalse(any(e["kind"] in ("step", "log") for e in rep["events"]))
        t = rep["training"]
        self.assertEqual((t["last_step"], t["epochs"], t["marks"], t["model_params"]), (100, 2, 1, 11689512))
        loss = t["scalars"][0]
        self.assertEqual(loss["name"], "loss")
        self.assertEqual(loss["first"], 1.0 / 50)
        self.assertAlmostEqual(loss["last"], 1.0 / 149, delta=1e-11)  # stored with 9 digits
        self.assertLessEqual(loss["count"], 4)  # 1.5 s of logs every 10 ms
        text = self.run_gw("report", "last").stdout
        self.assertRegex(text, r"last step 100, 2 epochs, 1 mark, model 11\.7 M parameters")


class OutputAnnotations(GpuwatchTestCase):
    SCRIPT = ("for e in 1 2 3; do echo \"Epoch $e/3 loss: 0.$e\"; echo \"err line $e\" >&2; sleep 0.3; done;"
              " printf 'partial line without newline'")

    def test_regex_reads_the_output_which_still_reaches_the_terminal(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary",
                        "--annotate-regex", r"Epoch (?<epoch>\d+)/\d+ loss: (?<loss>[0-9.]+)",
                        "--annotate-regex", r"^partial",
                        "--", "sh", "-c", self.SCRIPT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "Epoch 1/3 loss: 0.1\nEpoch 2/3 loss: 0.2\nEpoch 3/3 loss: 0.3\n"
                                   "partial line without newline")
        self.assertIn("err line 1\nerr line 2\nerr line 3\n", r.stderr)
        rep = self.report()
        self.assertEqual([e["label"] for e in rep["epochs"]], ["1", "2", "3"])
        self.assertEqual([e["message"] for e in rep["events"] if e["kind"] == "mark"],
                         ["partial line without newline"])

    def test_bad_patterns_are_usage_errors_and_nothing_runs(self):
        marker = os.path.join(self.tmp, "ran")
        for args in (["--annotate-regex", "(unclosed"], ["--annotate-regex", "(?<1x>a)"]):
            r = self.run_gw("record", *args, "--", "touch", marker)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--annotate-regex", r.stderr)
        r = self.run_gw("record", "--annotate-regex", "x", "--pid", str(os.getpid()))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("needs a command", r.stderr)
        self.assertFalse(os.path.exists(marker))
        self.assertEqual(self.runs(), [])


class OutputAnnotationsIssue9(GpuwatchTestCase):
    """Issue 9, items 3, 7, 11 and 24."""

    def test_an_epoch_printed_on_every_line_is_one_epoch(self):
        script = "for e in 1 2 3; do for i in 1 2 3 4; do echo \"Epoch $e step $i\"; done; sleep 0.2; done"
        r = self.run_gw("record", "--interval", "0.05", "--no-summary",
                        "--annotate-regex", r"Epoch (?P<epoch>\d+) step (?P<step>\d+)", "--", "sh", "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual(rep["training"]["epochs"], 3)
        self.assertEqual([(e["label"], e["occurrences"]) for e in rep["epochs"]], [("1", 1), ("2", 1), ("3", 1)])
        self.assertEqual(len([e for e in rep["events"] if e["kind"] == "epoch"]), 3)
        text = self.run_gw("report", "last").stdout
        self.assertIn("3 epochs", text)

    def test_python_style_patterns(self):
        script = "echo 'EPOCH 2 val_loss=9.5 loss=0.25'"
        r = self.run_gw("record", "--no-summary", "--annotate-regex",
                        r"(?i)epoch (?P<epoch>\d+).*(?<!val_)(?<=loss=)(?P<loss>[\d.]+)", "--", "sh", "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.report()["training"]
        self.assertEqual(t["epochs"], 1)
        self.assertEqual(t["scalars"][0]["name"], "loss")
        self.assertEqual(t["scalars"][0]["last"], 0.25)

    def test_lines_that_end_epochs(self):
        # Issue 22: the README's pattern matches the line printed when an epoch is done. With
        # `epoch_end`, epoch 1 starts with the command, each epoch ends on its line, and the
        # teardown after the last one is no epoch's.
        script = ("sleep 0.6; echo 'Epoch 1 loss 0.9'; sleep 0.6; echo 'Epoch 2 loss 0.5'; "
                  "sleep 0.6; echo 'Epoch 3 loss 0.2'; echo 'Epoch 3 loss 0.2 (final)'; sleep 0.8")
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--annotate-regex",
                        r"(?i)Epoch (?P<epoch_end>\d+).*loss (?P<loss>[0-9.]+)", "--", "sh", "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual([e["label"] for e in rep["epochs"]], ["1", "2", "3"])
        for e in rep["epochs"]:
            self.assertAlmostEqual(e["duration_s"], 0.6, delta=0.25, msg=e)
        self.assertEqual(rep["training"]["epochs"], 3)
        self.assertEqual(rep["training"]["scalars"][0]["last"], 0.2)

    def test_log_names_without_end_are_bounded(self):
        # Issue 22: every message a new name slipped past the once-a-second rule (107,946 stored).
        script = ("import json, os, socket\n"
                  "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
                  "for i in range(3000):\n"
                  "    s.sendto(json.dumps({'kind': 'log', 'value': {f'm{i}': 1.5}}).encode(), os.environ['GPUWATCH_SOCKET'])\n")
        r = self.run_gw("record", "--no-summary", "--", sys.executable, "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.report()["training"]
        self.assertEqual(len(t["scalars"]), 64)
        self.assertGreater(t["logs_dropped"], 2000)
        self.assertLessEqual(t["logs_dropped"], 3000 - 64)
        self.assertIn("log messages not stored (too many different names)", self.run_gw("report", "last").stdout)

    def test_a_bad_pattern_says_where(self):
        r = self.run_gw("record", "--annotate-regex", r"Epoch (?P<epoch>\d+", "--", "true")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("at offset 19", r.stderr)

    def test_marks_are_capped_and_the_rest_counted(self):
        script = "import sys\nfor i in range(5000): print('checkpoint', i)\n"
        r = self.run_gw("record", "--no-summary", "--annotate-regex", "checkpoint", "--", sys.executable, "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("\n"), 5000)  # all of it still reaches the terminal
        t = self.report()["training"]
        self.assertGreaterEqual(t["marks"], 100)
        self.assertLess(t["marks"], 200)
        self.assertEqual(t["marks"] + t["marks_dropped"], 5000)
        text = self.run_gw("report", "last").stdout
        self.assertIn(f"{t['marks_dropped']} more marks not stored", text)
        self.assertLess(text.count("checkpoint"), 45)  # first and last 20, not all of them

    def test_a_leftover_writer_does_not_keep_record_waiting(self):
        # The command exits at once; what it started writes on for ever.
        script = "(while :; do echo tick; sleep 0.01; done) & echo started"
        t0 = time.monotonic()
        r = self.run_gw("record", "--no-summary", "--annotate-regex", "started", "--", "sh", "-c", script,
                        timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.monotonic() - t0, 15)
        self.assertIn("started", r.stdout)

    def test_the_command_outlives_a_killed_recorder(self):
        # Issue 22: the recorder SIGKILLed (or OOM-killed) while it reads the output; before the
        # forwarder process, the command died of SIGPIPE at its next line.
        done = os.path.join(self.tmp, "done")
        script = f"for i in $(seq 40); do echo line $i; sleep 0.05; done; echo finished > {done}"
        p = self.start_gw("record", "--no-summary", "--annotate-regex", r"line (?P<step>\d+)", "--",
                          "sh", "-c", script)
        try:
            self.assertEqual(p.stdout.readline(), "line 1\n")
            os.kill(p.pid, signal.SIGKILL)
            p.wait(timeout=10)
            rest = p.stdout.read()  # the forwarder keeps passing it on until the command is done
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
            p.stderr.close()
        self.assertIn("line 40\n", rest)
        self.wait_for(lambda: os.path.exists(done), what="the command to finish")

    def _closed_after_one_line(self, *flags):
        p = subprocess.Popen([BIN, "record", "--no-summary", *flags, "--", "yes"], env=self.env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = p.stdout.readline()
        p.stdout.close()  # as `| head -1` does
        try:
            p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()
        return first, p.returncode

    def test_sigpipe_reaches_the_command_as_without_the_flag(self):
        self.assertEqual(self._closed_after_one_line(), (b"y\n", 141))
        self.assertEqual(self._closed_after_one_line("--annotate-regex", "y"), (b"y\n", 141))
        runs = self.runs()
        self.assertEqual(len(runs), 2)


PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")

CLIENT_SCRIPT = textwrap.dedent("""
    import time
    import gpuwatch
    assert gpuwatch.enabled()
    gpuwatch.model(params=25_600_000)
    for e in range(3):
        gpuwatch.epoch()
        with gpuwatch.phase("train"):
            for i in range(40):
                gpuwatch.step()
                gpuwatch.log(loss=2.0 - 0.01 * (40 * e + i))
                time.sleep(0.005)
        with gpuwatch.phase("val"):
            time.sleep(0.2)
    gpuwatch.mark("done")
""")


class PythonClient(GpuwatchTestCase):
    def test_the_client_under_record(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", sys.executable, "-c", CLIENT_SCRIPT,
                        scenario=QUICK + ";gpu_count=1", PYTHONPATH=PYTHON_DIR)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("not understood", r.stderr)
        rep = self.report()
        self.assertEqual([e["label"] for e in rep["epochs"]], ["1", "2", "3"])
        self.assertEqual({p["label"]: p["occurrences"] for p in rep["phases"]}, {"train": 3, "val": 3})
        t = rep["training"]
        self.assertEqual((t["last_step"], t["epochs"], t["model_params"]), (120, 3, 25_600_000))
        self.assertAlmostEqual(t["scalars"][0]["last"], 2.0 - 0.01 * 119, places=9)

    def test_the_client_does_nothing_outside_record(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        env.pop("GPUWATCH_SOCKET", None)
        script = CLIENT_SCRIPT.replace("assert gpuwatch.enabled()", "assert not gpuwatch.enabled()")
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)


# gpuwatch.metrics() under record: waits for the first values, prints a few
# answers (beyond the 0.2 s cache) as JSON lines.
METRICS_SCRIPT = textwrap.dedent("""
    import json, sys, time
    import gpuwatch
    # A generous timeout: a loaded CI machine may take longer than the 50 ms default to answer.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        m = gpuwatch.metrics(timeout=2)
        if "gpu_total_energy" in m:
            break
        time.sleep(0.05)
    for _ in range(3):
        print(json.dumps(gpuwatch.metrics(timeout=2)), flush=True)
        time.sleep(0.25)
""")


class PythonMetrics(GpuwatchTestCase):
    SCENARIO = QUICK + ";gpu_count=3;gpu0.util=40;gpu1.util=80;gpu0.mem_used_mib=2048;gpu1.mem_used_mib=6144"

    def answers(self, *record_args, **env):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", *record_args, "--", sys.executable, "-c",
                        METRICS_SCRIPT, scenario=self.SCENARIO, PYTHONPATH=PYTHON_DIR, **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("not understood", r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(len(lines), 3, r.stdout)
        return lines

    def test_the_recorders_values_of_the_jobs_gpus(self):
        # --gpus records GPUs 0 and 1; CUDA_VISIBLE_DEVICES makes both the job's (GPU 2 is neither).
        lines = self.answers("--gpus", "0,1", CUDA_VISIBLE_DEVICES="0,1")
        for m in lines:
            self.assertEqual(m["gpu_0_utilization"], 40)
            self.assertEqual(m["gpu_1_utilization"], 80)
            self.assertEqual(m["gpu_0_memory"], 2.0)  # GiB
            self.assertEqual(m["gpu_1_memory"], 6.0)
            self.assertEqual(m["gpu_total_memory"], 8.0)
            self.assertEqual(m["gpu_avg_utilization"], 60)
            self.assertAlmostEqual(m["gpu_load_balance_cv"], 20 / 60 * 100, places=6)
            self.assertAlmostEqual(m["gpu_0_power"], 120 + 5.8 * 40, delta=0.01)  # the fake's watts
            self.assertAlmostEqual(m["gpu_total_power"], 120 + 5.8 * 40 + 120 + 5.8 * 80, delta=0.02)
            # Since the recording began: the counter is read every 30 s, and power integrated since.
            self.assertAlmostEqual(m["gpu_total_energy"], m["gpu_0_energy"] + m["gpu_1_energy"], places=6)
        # Constant power on both: the energies are in the ratio of the watts.
        m = lines[-1]
        self.assertAlmostEqual(m["gpu_1_energy"] / m["gpu_0_energy"], m["gpu_1_power"] / m["gpu_0_power"], delta=0.05)
        for m in lines:
            self.assertFalse(any(name.startswith("gpu_2_") for name in m), m)
            self.assertEqual(len(m), 13, m)
        # 0.25 s apart (at least): each answer has more of the GPUs' watts, a tenth of a second's
        # at the least (answers are cached for 0.2 s, and the energy counts up to the last sample).
        for before, after in zip(lines, lines[1:]):
            self.assertGreater(after["gpu_0_energy"] - before["gpu_0_energy"], 0.1 * before["gpu_0_power"])

    def test_only_the_jobs_gpu(self):
        m = self.answers("--gpus", "0,1", CUDA_VISIBLE_DEVICES="1")[-1]
        self.assertEqual(m["gpu_1_utilization"], 80)
        self.assertEqual(m["gpu_total_memory"], 6.0)
        self.assertNotIn("gpu_load_balance_cv", m)  # one GPU
        self.assertNotIn("gpu_0_memory", m)

    def test_outside_record_an_empty_dict(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        env.pop("GPUWATCH_SOCKET", None)
        script = "import json, gpuwatch\nfor _ in range(3): print(json.dumps(gpuwatch.metrics()))"
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "{}\n{}\n{}\n")
