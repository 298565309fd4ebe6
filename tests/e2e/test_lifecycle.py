"""A run's life at its edges: a dead recorder whose pid was reused, Ctrl-C on
record --pid, recorders that create the store together, a full disk, socket
directories left by killed recorders, and --pid values that are not pids."""
import glob
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import threading
import time

from harness import BIN, GpuwatchTestCase, QUICK


def pid_from(path, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"no pid in {path}")


def kill_quietly(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


class StderrLines:
    """Collects a process's stderr lines as they come, on a thread."""

    def __init__(self, stream):
        self.lines = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            with self.lock:
                self.lines.append(line)

    def text(self):
        with self.lock:
            return "".join(self.lines)


class Case(GpuwatchTestCase):
    def recording(self):
        """Whether the store lists one run, recording; False while the store is still being created."""
        r = self.run_gw("runs", "--format", "json")
        return r.returncode == 0 and '"recording"' in r.stdout


class DeadRecorder(Case):
    def test_a_reused_pid_does_not_keep_a_killed_run_recording(self):
        started = os.path.join(self.tmp, "child.pid")
        p = self.start_gw("record", "--interval", "0.05", "--name", "victim", "--no-summary", "--",
                          "sh", "-c", f"echo $$ > {started}; exec sleep 30")
        child = pid_from(started)
        self.wait_for(self.recording, what="run row")
        time.sleep(1.2)  # a commit or two
        p.kill()
        p.wait()
        # Its child holds the recorder's output pipes open: communicate() would wait out its sleep.
        kill_quietly(child)
        p.communicate()
        # The recorder's pid now names a live process that is not the recorder.
        other = subprocess.Popen(["sleep", "30"])
        self.addCleanup(other.wait)
        self.addCleanup(other.kill)
        with sqlite3.connect(self.store) as db:
            db.execute("UPDATE runs SET recorder_pid = ?", (other.pid,))
        db.close()

        self.assertEqual(self.runs()[0]["status"], "interrupted")
        r = self.run_gw("status", "victim", "--format", "json")
        self.assertIn('"status": "interrupted"', r.stdout.replace('":"', '": "'))
        with sqlite3.connect(self.store) as db:
            self.assertEqual(db.execute("SELECT status FROM runs").fetchone()[0], "recording")  # readers only read
        db.close()
        # The next writer stores it.
        r = self.run_gw("record", "--no-summary", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        with sqlite3.connect(self.store) as db:
            self.assertEqual(db.execute("SELECT status FROM runs WHERE name = 'victim'").fetchone()[0],
                             "interrupted")
        db.close()


class InvisibleRecorder(Case):
    """Issue 22 item 3: a recorder whose pid the readers cannot see (in a container or another PID
    namespace on the same host) was shown interrupted, marked so by the next writer and deleted by a
    plain rm; it lost its samples and its end. Its lock on the store proves it alive."""

    RUN_S = 5.0

    def fake_procfs(self):
        """A procfs of this boot that lists no process: every recorder's pid is invisible in it."""
        root = os.path.join(self.tmp, "procfs")
        os.makedirs(os.path.join(root, "sys", "kernel", "random"))
        with open("/proc/sys/kernel/random/boot_id") as f, \
                open(os.path.join(root, "sys", "kernel", "random", "boot_id"), "w") as out:
            out.write(f.read())
        return root

    def statuses(self, **env):
        r = self.run_gw("runs", "--format", "json", **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return {x["name"]: x["status"] for x in json.loads(r.stdout)["runs"]}

    def stored(self, sql, *args):
        with sqlite3.connect(self.store) as db:
            row = db.execute(sql, args).fetchone()
        db.close()
        return row

    def check_untouched_while_it_records(self, p, **reader_env):
        """Readers, the next writer and rm, with `reader_env`, all leave the live run alone."""
        self.addCleanup(lambda: p.poll() is None and os.killpg(p.pid, signal.SIGKILL))
        self.wait_for(lambda: os.path.exists(self.store) and self.statuses().get("boxed") == "recording",
                      what="the boxed run")
        started = time.monotonic()
        checks = 0
        while time.monotonic() - started < self.RUN_S - 1.5:  # past the 4 s after which it was interrupted
            self.assertEqual(self.statuses(**reader_env).get("boxed"), "recording")
            checks += 1
            time.sleep(0.3)
        r = self.run_gw("record", "--name", "next", "--no-summary", "--", "true", **reader_env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.stored("SELECT status FROM runs WHERE name = 'boxed'")[0], "recording")
        r = self.run_gw("rm", "boxed", **reader_env)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("still being recorded", r.stderr)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertGreater(checks, 5)
        self.assertEqual(self.statuses(**reader_env)["boxed"], "finished")
        # Every sample: one per tick of the sampler, none lost to a gap.
        ticks, samples = self.stored(
            "SELECT jitter_ticks, (SELECT SUM(count) FROM sample_chunks c WHERE c.run_id = runs.id "
            "AND device_idx = 0) FROM runs WHERE name = 'boxed'")
        self.assertGreater(ticks, (self.RUN_S - 1) / 0.05 * 0.5)
        self.assertGreaterEqual(samples, ticks)
        self.assertIsNone(self.stored("SELECT 1 FROM events WHERE kind = 'store_gap'"))

    def test_a_recorder_whose_pid_readers_cannot_see_is_recording_until_it_finishes(self):
        p = self.start_gw("record", "--interval", "0.05", "--name", "boxed", "--no-summary", "--",
                          "sleep", str(self.RUN_S))
        self.check_untouched_while_it_records(p, GPUWATCH_PROCFS_ROOT=self.fake_procfs())

    def test_a_recorder_in_another_pid_namespace_is_recording_until_it_finishes(self):
        unshare = shutil.which("unshare")
        if os.geteuid() != 0 or unshare is None:
            self.skipTest("needs root and unshare(1) for a PID namespace")
        probe = subprocess.run([unshare, "-p", "-f", "--mount-proc", "true"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest(f"unshare -p fails here: {probe.stderr.decode().strip()}")
        p = subprocess.Popen([unshare, "-p", "-f", "--mount-proc", BIN, "record", "--interval", "0.05",
                              "--name", "boxed", "--no-summary", "--", "sleep", str(self.RUN_S)],
                             env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        self.check_untouched_while_it_records(p)
        # Its pid is its namespace's, a process of another name here.
        self.assertLess(self.stored("SELECT recorder_pid FROM runs WHERE name = 'boxed'")[0], 10)

    def test_a_killed_recorder_whose_pid_readers_cannot_see_is_interrupted_at_once(self):
        started = os.path.join(self.tmp, "child.pid")
        p = self.start_gw("record", "--interval", "0.05", "--name", "boxed", "--no-summary", "--",
                          "sh", "-c", f"echo $$ > {started}; exec sleep 30")
        child = pid_from(started)
        self.wait_for(lambda: os.path.exists(self.store) and self.statuses().get("boxed") == "recording",
                      what="the boxed run")
        p.kill()
        p.wait()
        # Its child holds the recorder's output pipes open: communicate() would wait out its sleep.
        kill_quietly(child)
        p.communicate()
        # Its heartbeat is fresh and its pid unseen; its lock is gone, and that is proof.
        procfs = self.fake_procfs()
        self.assertEqual(self.statuses(GPUWATCH_PROCFS_ROOT=procfs)["boxed"], "interrupted")
        r = self.run_gw("rm", "boxed", GPUWATCH_PROCFS_ROOT=procfs)
        self.assertEqual(r.returncode, 0, r.stderr)


class AttachedCtrlC(Case):
    def test_ctrl_c_stops_the_recording_and_the_target_runs_on(self):
        target = subprocess.Popen(["sleep", "30"])
        self.addCleanup(target.wait)
        self.addCleanup(target.kill)
        p = self.start_gw("record", "--interval", "0.05", "--pid", str(target.pid), "--name", "attached",
                          "--no-summary")
        self.wait_for(self.recording, what="run row")
        time.sleep(0.5)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 0, err)
        self.assertIsNone(target.poll(), "the target must keep running")
        rep = self.report("attached")
        self.assertEqual(rep["run"]["status"], "finished")
        self.assertEqual(rep["run"]["end_reason"], "stopped")


class BadPid(GpuwatchTestCase):
    def test_values_that_are_not_pids_get_one_short_line(self):
        for value in ["0", "-1", "abc", "1.5", "99999999999999999999999999"]:
            r = self.run_gw("record", f"--pid={value}")
            self.assertEqual(r.returncode, 2, (value, r.stderr))
            self.assertIn("--pid", r.stderr)
            self.assertIn("not a process id", r.stderr)
            self.assertLess(len(r.stderr), 200, r.stderr)
            self.assertIsNone(re.search(r"\d{30}", r.stderr), r.stderr)
        r = self.run_gw("record", "--pid", "-1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertLess(len(r.stderr), 200, r.stderr)
        self.assertFalse(os.path.exists(self.store))


class ConcurrentCreation(GpuwatchTestCase):
    def test_two_recorders_creating_the_store_together_both_run_and_store(self):
        for round_ in range(20):
            self.store = os.path.join(self.tmp, f"race{round_}.db")
            markers = [os.path.join(self.tmp, f"ran{round_}-{k}") for k in range(2)]
            procs = [self.start_gw("record", "--interval", "0.05", "--no-summary", "--name", f"r{k}", "--",
                                   "touch", markers[k]) for k in range(2)]
            for k, p in enumerate(procs):
                out, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 0, f"round {round_}, recorder {k}: {err}")
                self.assertTrue(os.path.exists(markers[k]), f"round {round_}: command {k} never ran")
            runs = self.runs()
            self.assertEqual(sorted(r["name"] for r in runs), ["r0", "r1"], f"round {round_}")
            self.assertTrue(all(r["status"] == "finished" for r in runs), runs)


# A store on a "full disk": RLIMIT_FSIZE stops gpuwatch's files from growing
# past a size; SIGXFSZ is ignored so that writes fail (EFBIG) as on a full disk.
# FULL_AT_BYTES leaves room in the WAL for the run's first transaction (its
# row and devices: twelve 4 KiB pages with an incremental store's pointer
# map), not for its samples. NO_ROOM_AT_BYTES leaves room for SQLite's 32 KiB
# shared-memory index only: not even the run's row fits.
FULL_AT_BYTES = 64 * 1024
NO_ROOM_AT_BYTES = 36 * 1024


def full_disk(limit_bytes=FULL_AT_BYTES):
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class DiskFull(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        # The store exists already (as it usually does): only the run's own
        # writes meet the full disk.
        r = self.run_gw("record", "--no-summary", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(os.path.getsize(self.store), FULL_AT_BYTES)

    def start_full(self, *command, limit_bytes=FULL_AT_BYTES):
        env = self.env(QUICK + ";gpu_count=4")
        p = subprocess.Popen([os.environ.get("GPUWATCH_BIN", "gpuwatch"), "record", "--interval", "0.01",
                              "--name", "full", "--", *command], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=lambda: full_disk(limit_bytes))
        return p, StderrLines(p.stderr)

    @staticmethod
    def finish_full(p, err, timeout):
        """The command's stdout once the recorder ended, its stderr read to the end."""
        out = p.stdout.read()
        p.wait(timeout=timeout)
        err.thread.join(timeout=10)
        p.stdout.close()
        p.stderr.close()
        return out

    def test_no_room_even_for_the_runs_row_the_command_runs_and_the_run_is_kept(self):
        # Before, the recorder killed the command and exited 1 when the run's
        # row could not be written (issue 25: an incremental store's first
        # transaction takes a page more).
        go = os.path.join(self.tmp, "go")
        p, err = self.start_full("sh", "-c", f"echo working; while [ ! -e {go} ]; do sleep 0.05; done; exit 5",
                                 limit_bytes=NO_ROOM_AT_BYTES)
        self.wait_for(lambda: "cannot write the run store" in err.text(), timeout=30, what="the disk to fill")
        self.assertEqual([r for r in self.runs() if r["name"] == "full"], [])  # not even its row yet
        resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        self.wait_for(lambda: "run store is written again" in err.text(), timeout=10, what="a flush to succeed")
        open(go, "w").close()
        out = self.finish_full(p, err, timeout=30)
        self.assertEqual(p.returncode, 5, err.text())
        self.assertEqual(out, "working\n")
        self.assertIn("nothing was lost", err.text())
        rep = self.report("full")
        self.assertEqual(rep["run"]["status"], "finished")
        self.assertEqual(rep["run"]["exit_code"], 5)
        duration = rep["run"]["wall_duration_s"]
        self.assertGreater(rep["devices"][0]["samples"], 50 * duration, rep["devices"][0])

    def test_no_room_to_the_end_the_command_is_undisturbed(self):
        p, err = self.start_full("sh", "-c", "sleep 3; echo done; exit 7", limit_bytes=NO_ROOM_AT_BYTES)
        out = self.finish_full(p, err, timeout=60)
        text = err.text()
        self.assertEqual(p.returncode, 7, text)
        self.assertEqual(out, "done\n")
        self.assertIn("cannot write the run store", text)
        self.assertIn("nothing of this run could be stored", text)
        self.assertNotIn("error after the command finished", text)
        self.assertEqual([r for r in self.runs() if r["name"] == "full"], [])

    def test_space_coming_back_loses_nothing_and_keeps_the_end(self):
        go = os.path.join(self.tmp, "go")
        p, err = self.start_full("sh", "-c", f"echo working; while [ ! -e {go} ]; do sleep 0.05; done; exit 5")
        self.wait_for(lambda: "cannot write the run store" in err.text(), timeout=30, what="the disk to fill")
        time.sleep(1.5)  # a few failed flushes, the buffer growing
        resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        self.wait_for(lambda: "run store is written again" in err.text(), timeout=10, what="a flush to succeed")
        open(go, "w").close()
        out = self.finish_full(p, err, timeout=30)
        self.assertEqual(p.returncode, 5, err.text())
        self.assertEqual(out, "working\n")  # the command's own output, untouched
        self.assertIn("nothing was lost", err.text())
        self.assertIn("Run ", err.text())  # the report
        rep = self.report("full")
        self.assertEqual(rep["run"]["status"], "finished")
        self.assertEqual(rep["run"]["exit_code"], 5)
        # No hole: ~100 samples a second for every GPU, all of them kept.
        duration = rep["run"]["wall_duration_s"]
        self.assertGreater(rep["devices"][0]["samples"], 50 * duration, rep["devices"][0])

    def test_full_to_the_end_the_command_is_undisturbed_and_the_report_printed(self):
        p, err = self.start_full("sh", "-c", "sleep 3; echo done; exit 7")
        out = self.finish_full(p, err, timeout=60)
        text = err.text()
        self.assertEqual(p.returncode, 7, text)
        self.assertEqual(out, "done\n")
        self.assertIn("cannot write the run store", text)
        self.assertIn("could not be saved", text)
        self.assertIn("Run ", text)  # a report, from what was stored
        self.assertIn("exit 7", text)  # the summary knows the exit status, stored or not
        run = [r for r in self.runs() if r["name"] == "full"][0]
        if "the end of the run could not be stored" in text:
            self.assertEqual(run["status"], "interrupted")
        else:
            rep = self.report("full")
            self.assertEqual(rep["run"]["status"], "finished")
            self.assertEqual(rep["run"]["exit_code"], 7)
            # The store_gap event comes too when there is room for it as well
            # (the unit tests make sure of that case).


class StaleSocketDirs(GpuwatchTestCase):
    def test_the_next_recorder_removes_a_killed_recorders_directory_only(self):
        tmpdir = os.path.join(self.tmp, "t")
        os.mkdir(tmpdir)
        env = dict(TMPDIR=tmpdir, XDG_RUNTIME_DIR="")
        dirs = lambda: set(glob.glob(os.path.join(tmpdir, "gpuwatch-*")))

        started = os.path.join(self.tmp, "killed.pid")
        killed = self.start_gw("record", "--no-summary", "--", "sh", "-c", f"echo $$ > {started}; exec sleep 30",
                               **env)
        child = pid_from(started)
        self.wait_for(lambda: len(dirs()) == 1, what="the socket directory")
        leftover = dirs()
        killed.kill()
        killed.wait()
        # Its child holds the recorder's output pipes open: communicate() would wait out its sleep.
        kill_quietly(child)
        killed.communicate()
        self.assertEqual(dirs(), leftover)  # SIGKILL leaves it behind

        # The next recorder removes it; its own directory stays while it runs.
        started = os.path.join(self.tmp, "live.pid")
        live = self.start_gw("record", "--no-summary", "--", "sh", "-c", f"echo $$ > {started}; exec sleep 30",
                             **env)
        live_child = pid_from(started)
        self.wait_for(lambda: len(dirs()) == 1 and dirs() != leftover, what="the dead recorder's directory to go")
        live_dir = dirs()

        # A recorder that starts while another runs leaves the live one's alone.
        r = self.run_gw("record", "--no-summary", "--", "true", **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(dirs(), live_dir)

        kill_quietly(live_child, signal.SIGTERM)
        live.communicate(timeout=20)
        self.assertEqual(dirs(), set())
