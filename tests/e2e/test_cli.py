"""Issue 9 items 18-20, 22: typos, one spelling for JSON, no-driver exits, run names, runs/rm/prune, UTF-8 names.
Issue 22 item 13: every number flag's errors in its own terms; running out of memory in the tool's words."""
import json
import os
import re
import resource
import subprocess
import unittest

from harness import BIN, FIXTURES, GpuwatchTestCase

NO_DRIVER = "/nonexistent/libnvidia-ml.so.1"


class Typos(GpuwatchTestCase):
    def test_mistyped_command_is_named_with_a_suggestion(self):
        r = self.run_gw("recrod")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command 'recrod'; did you mean 'record'?", r.stderr)
        self.assertNotIn("subcommand is required", r.stderr)
        r = self.run_gw("frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command 'frobnicate' (commands: devices, sample, record", r.stderr)

    def test_mistyped_flag_is_named_with_a_suggestion(self):
        marker = os.path.join(self.tmp, "ran")
        r = self.run_gw("record", "--nmae", "x", "--", "touch", marker)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option '--nmae' for record; did you mean '--name'?", r.stderr)
        self.assertNotIn("not expected", r.stderr)
        self.assertFalse(os.path.exists(marker))  # the command never ran
        self.assertFalse(os.path.exists(self.store))
        r = self.run_gw("report", "--fromat=json")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option '--fromat' for report; did you mean '--format'?", r.stderr)
        r = self.run_gw("runs", "--limt", "3")
        self.assertIn("did you mean '--limit'?", r.stderr)

    def test_command_options_before_the_separator_get_a_hint(self):
        r = self.run_gw("record", "python3", "-u", "x.py")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option '-u' for record", r.stderr)
        self.assertIn("put the command after --", r.stderr)

    def test_values_that_look_like_words_are_not_commands(self):
        # --name takes "recrod" as its value: no complaint about a command.
        r = self.run_gw("record", "--name", "recrod", "--no-summary", "--interval", "0.05", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.runs()[0]["name"], "recrod")


class OneSpelling(GpuwatchTestCase):
    def test_devices_takes_format_json_and_keeps_json(self):
        a = self.run_gw("devices", "--format", "json")
        b = self.run_gw("devices", "--json")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(json.loads(a.stdout), json.loads(b.stdout))
        self.assertEqual(len(json.loads(a.stdout)["devices"]), 2)

    def test_sample_takes_format_json_as_jsonl(self):
        r = self.run_gw("sample", "--count", "1", "--interval", "0.05", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(sum(1 for x in lines if x["type"] == "device"), 2)

    def test_no_driver_exits_9_with_the_reason(self):
        for args in (["devices"], ["sample", "--count", "1"]):
            r = self.run_gw(*args, library=NO_DRIVER)
            self.assertEqual(r.returncode, 9, (args, r.stdout, r.stderr))
            self.assertIn("no GPU found", r.stderr)
            self.assertIn("libnvidia-ml", r.stderr)  # the reason
            self.assertEqual(r.stdout, "")
        r = self.run_gw("devices", scenario="init_error=9")
        self.assertEqual(r.returncode, 9)

    def test_no_driver_with_json_is_a_json_error_on_stdout(self):
        for args in (["devices", "--format", "json"], ["devices", "--json"], ["sample", "--format", "jsonl"]):
            r = self.run_gw(*args, library=NO_DRIVER)
            self.assertEqual(r.returncode, 9, args)
            err = json.loads(r.stdout)["error"]
            self.assertEqual(err["kind"], "no_gpu")
            self.assertEqual(err["exit_code"], 9)
            self.assertIn("libnvidia-ml", err["message"])

    def test_status_errors_are_json_on_stdout(self):
        r = self.run_gw("status", "--format", "json")  # empty store
        self.assertEqual(r.returncode, 1)
        data = json.loads(r.stdout)
        self.assertEqual(data["schema_version"], 1)
        self.assertEqual(data["error"]["kind"], "error")
        self.assertIn("error", r.stderr)
        r = self.run_gw("status", "--format", "json", "--window", "0")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(json.loads(r.stdout)["error"]["kind"], "usage")
        r = self.run_gw("status")  # text: nothing on stdout
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")


class RunNames(GpuwatchTestCase):
    def record(self, *cmd, name=None):
        args = ["record", "--interval", "0.05", "--no-summary"]
        if name:
            args += ["--name", name]
        r = self.run_gw(*args, "--", *cmd)
        self.assertEqual(r.returncode, 0, r.stderr)
        return self.runs()[-1]

    def test_default_name_is_the_script(self):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as f:
            f.write("pass\n")
        shell = os.path.join(self.tmp, "run.sh")
        with open(shell, "w") as f:
            f.write("true\n")
        self.assertEqual(self.record("python3", "-u", script)["name"], "train")
        self.assertEqual(self.record("bash", shell)["name"], "run")
        self.assertEqual(self.record("env", "A=1", "python3", script)["name"], "train")

    def test_utf8_names_survive_in_file_names(self):
        out = os.path.join(self.tmp, "out")
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--name", "训练/ü", "--output-dir", out,
                        "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = os.listdir(out)
        self.assertTrue(names, out)
        self.assertTrue(all(n.startswith("gpu_stats_训练_ü_") for n in names), names)


class RunsRmPrune(GpuwatchTestCase):
    def record(self, name):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--name", name, "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)

    def names(self, *args):
        r = self.run_gw("runs", "--format", "json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [x["name"] for x in json.loads(r.stdout)["runs"]]

    def test_runs_filters(self):
        for n in ("bert-a", "gpt", "bert-b"):
            self.record(n)
        self.assertEqual(self.names("--name", "gpt"), ["gpt"])
        self.assertEqual(self.names("--name", "bert-*"), ["bert-a", "bert-b"])
        self.assertEqual(self.names("--limit", "2"), ["gpt", "bert-b"])
        self.assertEqual(self.names("--since", "1h"), ["bert-a", "gpt", "bert-b"])
        self.assertEqual(self.names("--since", "2199-01-01"), [])
        r = self.run_gw("runs", "--name", "nothing")
        self.assertIn("No run matches (the store has 3)", r.stdout)
        r = self.run_gw("runs", "--since", "yesterday")
        self.assertEqual(r.returncode, 2)
        self.assertIn("since", r.stderr)

    def test_rm_deletes_runs_and_refuses_bad_references_whole(self):
        for n in ("one", "two", "six"):  # not hex: a run id prefix could match
            self.record(n)
        r = self.run_gw("rm", "one", "nosuchrun")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.names(), ["one", "two", "six"])  # one bad reference deletes nothing
        r = self.run_gw("rm", "one", "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would delete", r.stdout)
        self.assertEqual(self.names(), ["one", "two", "six"])
        r = self.run_gw("rm", "one", "last")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("deleted 2 runs", r.stdout)
        self.assertEqual(self.names(), ["two"])
        self.assertEqual(self.run_gw("report", "one").returncode, 1)

    def test_a_store_being_created_lists_no_runs(self):
        open(self.store, "wb").close()  # as a recorder's first moment leaves it
        r = self.run_gw("runs")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No runs stored yet", r.stdout)
        self.assertEqual(self.names(), [])
        r = self.run_gw("report", "last")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is empty", r.stderr)

    def test_rm_refuses_a_live_run(self):
        p = self.start_gw("record", "--interval", "0.05", "--no-summary", "--name", "live", "--", "sleep", "30")
        try:
            self.wait_for(lambda: os.path.exists(self.store) and self.names() == ["live"], what="the live run")
            r = self.run_gw("rm", "live")
            # What the store says of the run, should the refusal not come.
            seen = self.run_gw("runs", "--format", "json").stdout
            self.assertEqual(r.returncode, 1, f"rm said: {r.stdout}{r.stderr}; runs: {seen}")
            self.assertIn("still being recorded", r.stderr)
            self.assertIn("--force", r.stderr)
            self.assertEqual(self.names(), ["live"])
            r = self.run_gw("prune", "--older-than", "1s")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.names(), ["live"])  # prune never takes a live run
        finally:
            os.killpg(p.pid, 15)
            p.communicate(timeout=30)

    def test_prune_older_than(self):
        # "old" is an imported run whose samples end in 2025: older than a day
        # however slowly this machine runs; "new" was written a moment ago.
        r = self.run_gw("import", os.path.join(FIXTURES, "import", "gputop_a10g.json"), "--name", "old")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.record("new")
        r = self.run_gw("prune", "--older-than", "1d", "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would delete 1 run", r.stdout)
        self.assertEqual(self.names(), ["old", "new"])
        r = self.run_gw("prune", "--older-than", "1d", "--vacuum")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.names(), ["new"])
        r = self.run_gw("prune", "--older-than", "30x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("duration", r.stderr)
        self.assertEqual(self.run_gw("prune").returncode, 2)  # --older-than is required


class StorePaths(GpuwatchTestCase):
    """Issue 22 items 8 and 14: the store is owner-only, and a store path that cannot be used is named
    with the reason, before a recorded command starts."""

    def marker(self):
        """Where the recorded command leaves a mark, writable by whichever user runs it."""
        folder = os.path.join(self.tmp, "open")
        if not os.path.isdir(folder):
            os.mkdir(folder)
            os.chmod(folder, 0o777)
        return os.path.join(folder, "ran")

    def assert_refused_before_the_command(self, r, *words):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
        for sqlite_words in ("disk I/O error", "unable to open database file", "filesystem error"):
            self.assertNotIn(sqlite_words, r.stderr)
        self.assertFalse(os.path.exists(self.marker()), "the command ran")

    def test_a_new_store_and_its_wal_and_shm_are_owner_only(self):
        old = os.umask(0o022)
        try:
            p = self.start_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "30")
            try:
                self.wait_for(lambda: os.path.exists(self.store + "-shm") and os.path.exists(self.store + "-wal"),
                              what="the store's -wal and -shm")
                for suffix in ("", "-wal", "-shm"):
                    self.assertEqual(os.stat(self.store + suffix).st_mode & 0o777, 0o600, "runs.db" + suffix)
            finally:
                os.killpg(p.pid, 15)
                p.communicate(timeout=30)
        finally:
            os.umask(old)

    def test_a_folder_as_the_store_is_named(self):
        folder = os.path.join(self.tmp, "stores")
        os.mkdir(folder)
        r = self.run_gw("record", "--", "touch", self.marker(), GPUWATCH_STORE=folder)
        self.assert_refused_before_the_command(r, f"the run store {folder} is a folder")
        r = self.run_gw("rm", "last", GPUWATCH_STORE=folder)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"{folder} is a folder", r.stderr)
        # Reading commands read a folder named by GPUWATCH_STORE as they read --store FOLDER.
        for args in (["runs"], ["status", "last"], ["report", "last"]):
            r = self.run_gw(*args, GPUWATCH_STORE=folder)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(f"the folder {folder} holds no run store", r.stderr)
            self.assertNotIn("disk I/O error", r.stderr)
        r = self.run_gw("record", "--name", "in-folder", "--no-summary", "--", "true",
                        GPUWATCH_STORE=os.path.join(folder, "a.db"))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_gw("runs", "--format", "json", GPUWATCH_STORE=folder)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x["name"] for x in json.loads(r.stdout)["runs"]], ["in-folder"])

    def test_a_store_named_that_does_not_exist_is_an_error_naming_it(self):
        missing = os.path.join(self.tmp, "typo.db")
        for args in (["runs", "--store", missing], ["prune", "--older-than", "1d", "--store", missing]):
            r = self.run_gw(*args)
            self.assertEqual(r.returncode, 1, f"{args}: {r.stdout}")
            self.assertIn(f"no run store at {missing}", r.stderr)
            self.assertNotIn("No runs stored yet", r.stdout)
        # The default store, not created yet, is another matter: nothing recorded yet.
        r = self.run_gw("runs")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No runs stored yet", r.stdout)

    def test_a_store_folder_that_cannot_be_created_is_named(self):
        # A plain file where a folder should be: no user may create the folder, root neither.
        plain = os.path.join(self.tmp, "plain")
        open(plain, "w").close()
        store = os.path.join(plain, "sub", "runs.db")
        r = self.run_gw("record", "--store", store, "--", "touch", self.marker())
        self.assert_refused_before_the_command(
            r, f"cannot create the folder {os.path.dirname(store)} for the run store {store}: Not a directory")

    def test_a_store_this_user_cannot_write_says_permission_denied(self):
        r = self.run_gw("record", "--name", "theirs", "--no-summary", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        os.chmod(self.store, 0o444)  # readable, not writable, by anyone but root
        r = self.run_gw_as_other_user("record", "--", "touch", self.marker())
        self.assert_refused_before_the_command(r, f"cannot write the run store {self.store}: Permission denied")
        # No store yet, in a folder the user may not create files in.
        locked = os.path.join(self.tmp, "locked")
        os.mkdir(locked, 0o555)
        new = os.path.join(locked, "runs.db")
        r = self.run_gw_as_other_user("record", "--store", new, "--", "touch", self.marker())
        self.assert_refused_before_the_command(r, f"cannot create the run store {new}: Permission denied")
        # A store the user may not read.
        os.chmod(self.store, 0o000)
        r = self.run_gw_as_other_user("runs", "--store", self.store)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn(f"cannot read the run store {self.store}: Permission denied", r.stderr)


# "  --interval FLOAT:[0.01 - 86400]=0.5", "  INDEX UINT:>= 0 REQUIRED": a number flag or positional in --help.
NUMBER_OPTION = re.compile(r"^  (?:-\w,)?(--[\w-]+|[A-Z]+) (?:INT|UINT|FLOAT|NUMBER)\b(?::(\[([\d.]+) - |>= ([\d.]+)))?")
# What is not listed in --help: matrix run-cell (hidden), and --pid, a number read as TEXT.
# The former names of renamed flags (FORMER_NAMES) are checked as their new names are.
FORMER_NAMES = [(("record",), "--status-every", "--status-interval", "0.01"),
                (("record",), "--check-every", "--check-interval", "0.1"),
                (("bench",), "--metrics-sample-rate", "--metrics-interval", "0.01")]
UNLISTED = [(("matrix", "run-cell"), "INDEX", "0"), (("record",), "--pid", "1")] + [
    (command, former, least) for command, former, _, least in FORMER_NAMES]


class NumberFlags(GpuwatchTestCase):
    def help_of(self, command):
        r = self.run_gw(*command, "--help")
        self.assertEqual(r.returncode, 0, (command, r.stderr))
        return r.stdout

    def commands(self, command=()):
        """Every command and subcommand --help lists, depth first."""
        found = [command]
        text = self.help_of(command)
        if "\nSubcommands:\n" in text:
            for line in text.split("\nSubcommands:\n", 1)[1].splitlines():
                m = re.match(r"^  ([a-z][\w-]*) ", line)
                if m:
                    found += self.commands((*command, m.group(1)))
                elif line and not line.startswith(" "):
                    break
        return found

    def number_flags(self):
        """(command, flag, the smallest value it takes) for every number flag of every command."""
        flags = []
        for command in self.commands():
            for line in self.help_of(command).splitlines():
                m = NUMBER_OPTION.match(line)
                if m:
                    flags.append((command, m.group(1), m.group(3) or m.group(4)))
        return flags + UNLISTED

    def argv(self, command, flag, value):
        if flag == "INDEX":
            return [*command, os.path.join(self.tmp, "no-matrix"), value]
        return [*command, f"{flag}={value}" if value.startswith("-") else flag, *([] if value.startswith("-") else [value])]

    def test_every_number_flag_says_what_it_expects(self):
        flags = self.number_flags()
        self.assertGreater(len(flags), 25, flags)  # the help was read
        for command, flag, least in flags:
            for value in ("abc", "-1", "0", "1e999"):
                if value == "0" and least == "0":
                    continue  # a value it takes: see below
                with self.subTest(command=" ".join(command), flag=flag, value=value):
                    r = self.run_gw(*self.argv(command, flag, value), timeout=30,
                                    GPUWATCH_BENCH_WORKER_DIR=self.tmp)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    message = r.stderr.splitlines()[0]
                    self.assertTrue(message.startswith(f"gpuwatch: error: {flag}: "), message)
                    self.assertNotIn(f"{flag}: {flag}:", message)
                    self.assertIsNone(re.search(r"\d{16}", message), message)  # no DBL_MAX, no 309 digits
                    self.assertNotIn("not in range", message)
                    self.assertIn(f"'{value}'", message)
                    if flag != "--pid":
                        self.assertRegex(message, r": expected .*\(e\.g\. [0-9.]+\), got '")

    def test_a_number_a_flag_takes_is_not_refused(self):
        for command, flag, least in self.number_flags():
            if least != "0":
                continue
            with self.subTest(command=" ".join(command), flag=flag):
                r = self.run_gw(*self.argv(command, flag, "0"), timeout=30, GPUWATCH_BENCH_WORKER_DIR=self.tmp)
                self.assertNotIn(f"{flag}: expected", r.stderr)

    def test_renamed_flags_keep_their_former_names_out_of_the_help(self):
        for command, former, name, _ in FORMER_NAMES:
            with self.subTest(flag=former):
                text = self.help_of(command)
                self.assertIn(name, text)
                self.assertNotIn(former, text)
        # Still read, as the new name: a status line every 0.2 s of a 1 s command.
        r = self.run_gw("record", "--no-summary", "--status-line", "--status-every", "0.2", "--interval", "0.05",
                        "--", "sleep", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(len([l for l in r.stderr.splitlines() if l.startswith("GPU0:")]), 3, r.stderr)

    def test_the_messages_the_issue_quoted(self):
        for args, message in [
            (["record", "--interval", "abc"], "--interval: expected seconds between 0.01 and 86400 (e.g. 0.5), got 'abc'"),
            (["runs", "--limit", "-1"], "--limit: expected a whole number of runs, 1 or more (e.g. 20), got '-1'"),
            (["sample", "--count", "0"], "--count: expected a whole number of samples, 1 or more (e.g. 10), got '0'"),
            (["record", "--gpus", "abc"], "--gpus: expected GPU indices like 0,2 or 0-3, got 'abc'"),
        ]:
            with self.subTest(args=args):
                r = self.run_gw(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stderr.splitlines()[0], "gpuwatch: error: " + message)

    def test_gpu_lists_say_it_once(self):
        for command in (["record"], ["sample"], ["top", "--once"], ["bench"], ["exporter"], ["serve"]):
            for value in ("abc", "1e999", "3-1", ""):
                with self.subTest(command=command, value=value):
                    r = self.run_gw(*command, f"--gpus={value}", timeout=30)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertTrue(r.stderr.startswith("gpuwatch: error: --gpus: "), r.stderr)
                    self.assertNotIn("--gpus: --gpus:", r.stderr)


class OutOfMemory(GpuwatchTestCase):
    # AddressSanitizer reserves its shadow memory up front, far beyond the limit set here.
    @unittest.skipIf("LSAN_OPTIONS" in os.environ, "sanitizer build: ASan cannot start under a 300 MiB address space")
    def test_running_out_of_memory_is_said_in_the_tools_words(self):
        # A million-cell grid planned for Slurm under a 300 MiB address space: the plan does not fit.
        values = ",".join(str(i) for i in range(1000))
        limit = 300 << 20

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        r = subprocess.run([BIN, "matrix", "--slurm", "--param", "a=" + values, "--param", "b=" + values,
                            "--output-dir", os.path.join(self.tmp, "grid"), "--", "echo", "{a}{b}"],
                           env=self.env(), capture_output=True, text=True, timeout=120, preexec_fn=limited)
        self.assertNotIn("bad_alloc", r.stderr)
        if r.returncode != 0:  # a plan made lazily may fit; a refusal is fine too
            self.assertIn(r.returncode, (1, 2), r.stderr)
            if r.returncode == 1:
                self.assertTrue(r.stderr.startswith("gpuwatch: error: out of memory: "), r.stderr)
