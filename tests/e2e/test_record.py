"""record: exit codes, signals, crashes of either side, attach, output files."""
import json
import os
import re
import signal
import subprocess
import sys
import time

from harness import GpuwatchTestCase, QUICK

PY = sys.executable


class RecordExit(GpuwatchTestCase):
    def test_returns_the_commands_exit_code_and_stores_the_run(self):
        r = self.run_gw("record", "--interval", "0.05", "--name", "exit3", "--", "sh", "-c", "sleep 0.5; exit 3")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("Run ", r.stderr)  # the summary
        rep = self.report("exit3")
        run = rep["run"]
        self.assertEqual(run["status"], "finished")
        self.assertEqual(run["exit_code"], 3)
        self.assertEqual(run["command"], ["sh", "-c", "sleep 0.5; exit 3"])
        self.assertEqual(run["interval_s"], 0.05)
        self.assertEqual(run["slow_interval_s"], 1)  # max(interval, 1 s), stored with the run
        self.assertEqual(len(rep["devices"]), 2)
        self.assertGreaterEqual(rep["devices"][0]["samples"], 5)
        self.assertGreater(run["wall_duration_s"], 0.45)
        self.assertGreaterEqual(run["sampler"]["ticks"], 5)

    def test_child_killed_by_signal_gives_128_plus_n(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sh", "-c", "sleep 0.2; kill -9 $$")
        self.assertEqual(r.returncode, 137, r.stderr)
        run = self.report()["run"]
        self.assertEqual(run["exit_signal"], 9)
        self.assertIsNone(run["exit_code"])
        self.assertIn("SIGKILL", self.run_gw("report", "last").stdout)

    def test_command_not_found_is_127_and_stores_nothing(self):
        r = self.run_gw("record", "--", "/no/such/command")
        self.assertEqual(r.returncode, 127)
        self.assertIn("cannot run '/no/such/command'", r.stderr)
        self.assertEqual(self.runs(), [])

    def test_gpu_selection(self):
        r = self.run_gw("record", "--interval", "0.05", "--gpus", "1", "--no-summary", "--", "sleep", "0.3",
                        scenario=QUICK + ";gpu_count=3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([d["gpu"] for d in self.report()["devices"]], [1])
        r = self.run_gw("record", "--gpus", "5", "--", "true")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no GPU 5", r.stderr)

    def test_without_driver_records_host_only(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "1.2", library="/nonexistent.so")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(re.findall(r"no GPU found", r.stderr)), 1)
        rep = self.report()
        self.assertEqual(rep["devices"], [])
        self.assertIn("mem_total_bytes", rep["host"])
        self.assertIn("cpu_percent", rep["host"])

    def test_old_driver_records(self):
        from harness import FAKE_NVML_OLD
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.3", library=FAKE_NVML_OLD)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertIn("mem_used_bytes", rep["devices"][0]["metrics"])
        self.assertEqual(rep["devices"][0]["energy"]["source"], "integrated")


class RecordSignals(GpuwatchTestCase):
    TRAP = ("import signal, sys, time\n"
            "signal.signal(signal.SIGINT, lambda *a: sys.exit(42))\n"
            "signal.signal(signal.SIGTERM, lambda *a: sys.exit(43))\n"
            "open(sys.argv[1], 'w').close()\n"
            "time.sleep(30)\n")

    def forward(self, sig, expected):
        marker = os.path.join(self.tmp, "ready")
        p = self.start_gw("record", "--interval", "0.05", "--", PY, "-c", self.TRAP, marker)
        self.wait_for(lambda: os.path.exists(marker), what="child start")
        os.kill(p.pid, sig)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, expected, err)
        run = self.report()["run"]
        self.assertEqual(run["status"], "finished")
        self.assertEqual(run["exit_code"], expected)
        events = self.report()["events"]
        self.assertTrue(any(e["kind"] == "signal" for e in events), events)

    def test_sigint_is_forwarded_and_the_recorder_exits_after_the_child(self):
        self.forward(signal.SIGINT, 42)

    def test_sigterm_is_forwarded(self):
        self.forward(signal.SIGTERM, 43)

    def test_no_command_records_until_ctrl_c(self):
        p = self.start_gw("record", "--interval", "0.05", "--name", "open-ended")
        time.sleep(1.0)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 0, err)
        rep = self.report("open-ended")
        self.assertEqual(rep["run"]["end_reason"], "stopped")
        self.assertGreaterEqual(rep["devices"][0]["samples"], 10)

    def test_attach_to_pid_until_it_exits(self):
        target = subprocess.Popen(["sleep", "2.0"])
        r = self.run_gw("record", "--interval", "0.05", "--pid", str(target.pid), "--no-summary")
        target.wait()
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual(rep["run"]["end_reason"], "target exited")
        # The run lasts from the recorder's start, which a busy machine can
        # delay, to the target's end: at most the time the target had left.
        self.assertGreater(rep["run"]["wall_duration_s"], 0.1)
        self.assertLess(rep["run"]["wall_duration_s"], 2.5)
        r = self.run_gw("record", "--pid", "999999999")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no such process", r.stderr)


class RecordCrash(GpuwatchTestCase):
    def test_sigkill_of_the_recorder_loses_at_most_a_second(self):
        p = self.start_gw("record", "--interval", "0.05", "--name", "crashed", "--", "sleep", "29.125")
        time.sleep(3.0)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        # The command has a process group of its own and outlives the recorder.
        subprocess.run(["pkill", "-f", "^sleep 29.125$"], check=False)
        runs = self.runs()
        self.assertEqual(len(runs), 1)
        self.assertEqual(runs[0]["status"], "interrupted")
        rep = self.report("crashed")
        self.assertEqual(rep["run"]["status"], "interrupted")
        # 3 s at 20 Hz is ~60 samples; at most the last second (20) may be lost.
        self.assertGreaterEqual(rep["devices"][0]["samples"], 35)
        self.assertIn("interrupted", self.run_gw("report", "crashed").stdout)


class RecordOutputs(GpuwatchTestCase):
    def test_output_dir_writes_the_seed_files(self):
        out = os.path.join(self.tmp, "results")
        r = self.run_gw("record", "--interval", "0.05", "--name", "lenet5 adamw", "--output-dir", out, "--",
                        "sleep", "0.5", scenario=QUICK + ";gpu*.util=80;gpu*.mem_used_mib=12800")
        self.assertEqual(r.returncode, 0, r.stderr)
        files = sorted(os.listdir(out))
        self.assertEqual(len(files), 3, files)
        stem = files[0][:-len(".json")]
        self.assertRegex(stem, r"^gpu_stats_lenet5_adamw_\d{8}_\d{6}$")
        self.assertEqual(files, [stem + ".json", stem + "_multi_gpu.json", stem + "_summary.txt"])
        with open(os.path.join(out, stem + ".json")) as f:
            single = json.load(f)
        self.assertGreaterEqual(len(single), 5)
        first = single[0]
        for key in ["timestamp", "gpu_index", "gpu_name", "gpu_type", "utilization", "memory_used",
                    "memory_total", "memory_percent", "power", "temperature", "elapsed_seconds"]:
            self.assertIn(key, first)
        self.assertEqual(first["utilization"], 80)
        self.assertEqual(first["memory_used"], 12800)  # NVML v2: the reservation is apart
        self.assertTrue(all(s["gpu_index"] == 0 for s in single))
        with open(os.path.join(out, stem + "_multi_gpu.json")) as f:
            multi = json.load(f)
        self.assertEqual(multi[0]["aggregate_stats"]["gpu_count"], 2)
        self.assertEqual(len(multi[0]["multi_gpu_data"]), 2)
        with open(os.path.join(out, stem + "_summary.txt")) as f:
            self.assertIn("Load balance", f.read())

    def assert_output_dir_refused(self, r, marker, *words):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("gpuwatch: error: --output-dir ", r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
        self.assertNotIn("filesystem error", r.stderr)
        self.assertFalse(os.path.exists(marker), "the command ran")

    def test_unusable_output_dir_fails_before_the_command_runs(self):
        marker = os.path.join(self.tmp, "ran")
        r = self.run_gw("record", "--output-dir", "/proc/no/such/dir", "--", "touch", marker)
        self.assert_output_dir_refused(r, marker, "/proc/no/such/dir: cannot create it")
        # A parent that is a plain file: no user may create the folder, root neither.
        plain = os.path.join(self.tmp, "plain")
        open(plain, "w").close()
        r = self.run_gw("record", "--output-dir", os.path.join(plain, "out"), "--", "touch", marker)
        self.assert_output_dir_refused(r, marker, f"{plain}/out: cannot create it: Not a directory")
        r = self.run_gw("record", "--output-dir", plain, "--", "touch", marker)
        self.assert_output_dir_refused(r, marker, f"{plain}: it is a file, not a folder")

    def test_an_output_dir_this_user_cannot_write_fails_before_the_command_runs(self):
        # Before: the whole job ran, then the files could not be written and record exited 0.
        out = os.path.join(self.tmp, "out")
        os.mkdir(out, 0o555)
        writable = os.path.join(self.tmp, "open")  # for the store, and the command's marker
        os.mkdir(writable)
        os.chmod(writable, 0o777)  # whatever the umask
        marker = os.path.join(writable, "ran")
        r = self.run_gw_as_other_user("record", "--output-dir", out, "--", "touch", marker,
                                      GPUWATCH_STORE=os.path.join(writable, "runs.db"))
        self.assert_output_dir_refused(r, marker, f"{out}: this user cannot write in it: Permission denied")

    def test_status_line_when_not_a_terminal(self):
        r = self.run_gw("record", "--interval", "0.05", "--status-line", "--status-interval", "0.3", "--no-summary",
                        "--", "sleep", "2.0", scenario=QUICK + ";gpu*.util=85")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("GPU0:")]
        self.assertGreaterEqual(len(lines), 2, r.stderr)
        self.assertRegex(lines[-1], r"^GPU0: 85% \| VRAM0:[\d.]+/79\.6GB\([\d.]+%\) \| GPU1: 85% \| "
                                    r"VRAM1:[\d.]+/79\.6GB\([\d.]+%\) \| CPU: [\d.]+% \| RAM:[\d.]+/[\d.]+GB\([\d.]+%\)$")


class RecordProcessGpuUse(GpuwatchTestCase):
    def test_each_process_keeps_its_gpu_use(self):
        # A process the fake driver lists on GPU 1 with 64 % of its SMs (NVML's per-process
        # utilization), another on GPU 0 that used none (the driver answers NOT_FOUND: no process
        # ran there since the last read): the report keeps the GPU use of both.
        with subprocess.Popen(["sleep", "30"]) as busy, subprocess.Popen(["sleep", "30"]) as quiet:
            try:
                scenario = (f"{QUICK};gpu_count=2;gpu1.processes={busy.pid}:{1 << 30};"
                            f"gpu0.processes={quiet.pid}:{1 << 29};gpu1.process_util={busy.pid}:64")
                r = self.run_gw("record", "--interval", "0.2", "--no-summary", "--", "sleep", "2.5",
                                scenario=scenario)
                self.assertEqual(r.returncode, 0, r.stderr)
            finally:
                busy.kill()
                quiet.kill()
        report = json.loads(self.run_gw("report", "last", "--format", "json").stdout)
        procs = {p["pid"]: p for p in report["processes"]}
        self.assertEqual(procs[busy.pid]["mean_gpu_percent"], 64)
        self.assertEqual(procs[busy.pid]["max_gpu_percent"], 64)
        self.assertEqual(procs[quiet.pid]["mean_gpu_percent"], 0)
        self.assertEqual(procs[quiet.pid]["max_gpu_percent"], 0)
        text = self.run_gw("report", "last").stdout
        self.assertIn("GPU use % mean", text)  # the catalogue's words (docs/metrics.md)
        self.assertRegex(text, rf"\b{busy.pid}\s+\d+\s+64\s+64\b")
        # The jsonl export ends with the processes, and import reads them back.
        exported = os.path.join(self.tmp, "run.jsonl")
        r = self.run_gw("export", "last", "--format", "jsonl", "-o", exported)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(exported) as f:
            lines = [json.loads(line) for line in f]
        rows = [x for x in lines if x["type"] == "process"]
        self.assertEqual(sorted(x["pid"] for x in rows), sorted([busy.pid, quiet.pid]))
        self.assertEqual(lines[-len(rows):], rows)
        r = self.run_gw("import", exported, "--name", "back")
        self.assertEqual(r.returncode, 0, r.stderr)
        back = json.loads(self.run_gw("report", "back", "--format", "json").stdout)
        self.assertEqual({p["pid"]: (p["gpu"], p["max_used_memory_bytes"], p["mean_gpu_percent"],
                                     p["max_gpu_percent"], p["first_seen"]) for p in back["processes"]},
                         {p["pid"]: (p["gpu"], p["max_used_memory_bytes"], p["mean_gpu_percent"],
                                     p["max_gpu_percent"], p["first_seen"]) for p in report["processes"]})


class RecordSummary(GpuwatchTestCase):
    """What record prints at its end: a short summary by default, the report with --full."""

    def summary(self, r):
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stderr[r.stderr.index("Run "):]

    def test_default_is_a_short_summary_with_the_command_for_the_full_report(self):
        r = self.run_gw("record", "--interval", "0.05", "--name", "short", "--", "sleep", "1",
                        scenario=QUICK + ";gpu_count=1;gpu0.util=97;gpu0.mem_used_mib=65000")
        text = self.summary(r)
        run_id = self.report("short")["run"]["id"]
        lines = text.splitlines()
        self.assertLessEqual(len(lines), 10, text)
        self.assertTrue(all(len(l) <= 100 for l in lines), text)
        self.assertRegex(lines[0], r"^Run [0-9a-f]{12}  short  exit 0 after \d")
        self.assertEqual(lines[1], "verdict: ok", text)
        self.assertRegex(text, r"\n  0 +\S.* +97 +63\.5 of 79\.6 GiB \(80 %\) +\d+\n")
        self.assertEqual(lines[-1], f"full report: gpuwatch report {run_id}")
        self.assertNotIn("Sampler", text)  # the full report's details stay out

    def test_full_prints_the_report_as_report_does(self):
        r = self.run_gw("record", "--interval", "0.05", "--name", "full", "--full", "--", "sleep", "0.5",
                        scenario=QUICK + ";gpu_count=1")
        text = self.summary(r)
        self.assertIn("Sampler", text)
        self.assertNotIn("verdict:", text)
        self.assertEqual(text, self.run_gw("report", "full").stdout)

    def test_no_summary_prints_nothing(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "0.3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    def test_the_advisors_verdict_tops_the_summary(self):
        # 20 % busy with 2 GiB of 79.6: low utilization and a batch too small,
        # judged over a 2 s window as `status` would.
        conf = self.advisor_config("window_s = 2\nwarmup_s = 1\n")
        r = self.run_gw("record", "--interval", "0.05", "--advisor-config", conf, "--", "sleep", "3",
                        scenario=QUICK + ";gpu_count=1;gpu0.util=20;gpu0.mem_used_mib=2048")
        text = self.summary(r)
        self.assertRegex(text.splitlines()[1], r"^verdict: warning: (memory\.batch_too_small|util\.\w+) GPU 0$", text)
        # info, explained by util.host_bound, when this machine's CPUs are busy (a parallel build).
        self.assertRegex(text, r"\[(warning|info)\] memory\.batch_too_small GPU 0")
        self.assertLessEqual(len(text.splitlines()), 10, text)

    def test_eight_gpus_stay_short(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.5",
                        scenario=QUICK + ";gpu_count=8;gpu*.util=90")
        text = self.summary(r)
        gpu_rows = [l for l in text.splitlines() if re.match(r"^  \d +NVIDIA", l)]
        self.assertEqual(len(gpu_rows), 8, text)
        self.assertLessEqual(len(text.splitlines()), 14, text)


class RecordTerminal(GpuwatchTestCase):
    def test_status_line_refreshes_in_place_on_a_terminal(self):
        status, out = self.run_in_pty(["record", "--interval", "0.05", "--status-line", "--no-summary", "--",
                                       "sleep", "1.6"], QUICK + ";gpu_count=1;gpu*.util=85")
        self.assertEqual(status, 0, out)
        text = out.decode()
        # Carriage return + erase-line before each refresh, one newline at the end.
        refreshes = text.count("\r\x1b[KGPU: 85% | VRAM:")
        self.assertGreaterEqual(refreshes, 3, text)
        self.assertEqual(text.rstrip("\r\n").count("\n"), 0, text)

    def test_the_command_can_read_the_terminal(self):
        # The command's group gets the terminal: a prompt (W&B login, input(),
        # breakpoint()) must work, not stop the command with SIGTTIN.
        status, out = self.run_in_pty(["record", "--interval", "0.05", "--no-summary", "--",
                                       "sh", "-c", "read answer; echo got $answer"], QUICK + ";gpu_count=1",
                                      typed=b"hello\n")
        self.assertIn(b"got hello", out)
        self.assertEqual(status, 0, out)

    def run_in_pty(self, args, scenario, typed=b""):
        """Runs gpuwatch on a new pseudo-terminal (its session leader, in the
        foreground); types `typed` after half a second. Returns (exit status, output)."""
        import pty
        from harness import BIN
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(BIN, [BIN, *args], self.env(scenario))
        if typed:
            time.sleep(0.5)
            os.write(fd, typed)
        out = b""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status), out
