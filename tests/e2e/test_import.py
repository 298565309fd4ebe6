"""import, and RUN given as a file: every fixture format, truncated files, bad files."""
import json
import os
import re
import sqlite3

from harness import FIXTURES, GpuwatchTestCase, QUICK, tree

IMPORT_FIXTURES = os.path.join(FIXTURES, "import")
LINE = re.compile(r"^imported ([0-9a-f]{12}) \(([a-z-]+)\): (\d+) samples read, (\d+) dropped$")

# file -> (format, samples read, samples dropped, GPUs)
EXPECTED = {
    "seed_wrapper_w7900.json": ("json", 5, 0, 1),
    "legacy_a10g.json": ("json", 4, 0, 1),
    "gputop_w7900.json": ("gputop-json", 4, 0, 1),
    "gputop_a10g.json": ("gputop-json", 3, 0, 1),
    "gputop_a10g_multi_gpu.json": ("gputop-multi-json", 3, 0, 4),
    "gpuwatch_h100.json": ("json", 10, 0, 2),
    "gpuwatch_h100_multi_gpu.json": ("multi-json", 5, 0, 2),
    "gpuwatch_h100.jsonl": ("jsonl", 12, 0, 2),
    "gpuwatch_h100.csv": ("csv", 10, 0, 2),
    "gputop_w7900_cut_mid_string.json": ("gputop-json", 3, 1, 1),
    "gputop_w7900_cut_mid_number.json": ("gputop-json", 3, 1, 1),
    "seed_wrapper_missing_bracket.json": ("json", 5, 0, 1),
    "seed_wrapper_trailing_garbage.json": ("json", 5, 0, 1),
    "gputop_a10g_multi_gpu_cut.json": ("gputop-multi-json", 2, 1, 4),
    "gpuwatch_h100_cut.jsonl": ("jsonl", 11, 1, 2),
    "gpuwatch_h100_cut.csv": ("csv", 9, 1, 2),
    "gputop_python_quirks.json": ("gputop-json", 3, 3, 1),
}


def fixture(name):
    return os.path.join(IMPORT_FIXTURES, name)


class Import(GpuwatchTestCase):
    def env(self, *args, **kwargs):
        env = super().env(*args, **kwargs)
        env["TZ"] = "UTC0"  # the seed files' timestamps are local times
        return env

    def import_file(self, path, *args):
        r = self.run_gw("import", path, *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = LINE.match(r.stdout.strip())
        self.assertIsNotNone(m, r.stdout)
        return m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), r.stderr

    def assert_refused(self, cases, *also_said):
        """Each file of `cases` (name -> (content, message)) is an error for import and for report: exit 1, the
        path and the message on stderr (and each of `also_said`), nothing on stdout, no store created."""
        for name, (content, message) in cases.items():
            path = os.path.join(self.tmp, name)
            with open(path, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode())
            for command in (["import", path], ["report", path]):
                with self.subTest(name=name, command=command[0]):
                    r = self.run_gw(*command)
                    self.assertEqual(r.returncode, 1, r.stdout)
                    self.assertIn(f"gpuwatch: error: {path}: {message}", r.stderr)
                    for text in also_said:
                        self.assertIn(text, r.stderr)
                    self.assertEqual(r.stdout, "")
        self.assertFalse(os.path.exists(self.store))

    def test_every_fixture_imports_and_reports(self):
        self.assertEqual(sorted(EXPECTED), sorted(f for f in os.listdir(IMPORT_FIXTURES) if f != "README.md"))
        for name, (fmt, read, dropped, gpus) in EXPECTED.items():
            with self.subTest(name):
                run_id, got_fmt, got_read, got_dropped, stderr = self.import_file(fixture(name))
                self.assertEqual((got_fmt, got_read, got_dropped), (fmt, read, dropped))
                if dropped:
                    self.assertIn(f"warning: {fixture(name)}: {dropped} sample", stderr)
                else:
                    self.assertNotIn("dropped", stderr)
                rep = self.report(run_id)
                self.assertEqual(rep["run"]["id"], run_id)
                self.assertEqual(rep["run"]["status"], "finished")
                self.assertEqual(rep["run"]["end_reason"], "imported")
                self.assertEqual(rep["run"]["name"], os.path.splitext(name)[0])
                self.assertEqual(len(rep["devices"]), gpus)
                self.assertIn("gpu_util_percent", rep["devices"][0]["metrics"])
                text = self.run_gw("report", run_id)
                self.assertEqual(text.returncode, 0, text.stderr)
                self.assertIn("[finished] imported", text.stdout)
        self.assertEqual(len(self.runs()), len(EXPECTED))

    def test_export_of_an_imported_run(self):
        run_id = self.import_file(fixture("gputop_a10g_multi_gpu.json"), "--name", "a10g x4")[0]
        self.assertEqual(self.runs()[-1]["name"], "a10g x4")
        r = self.run_gw("export", "a10g x4", "--format", "multi-json")
        self.assertEqual(r.returncode, 0, r.stderr)
        ticks = json.loads(r.stdout)
        self.assertEqual(len(ticks), 3)
        self.assertEqual(ticks[0]["timestamp"], "2025-09-02T14:05:09.300112")
        self.assertEqual(ticks[1]["elapsed_seconds"], 1.11)
        self.assertEqual([g["gpu_index"] for g in ticks[0]["multi_gpu_data"]], [0, 1, 2, 3])
        gpu2 = ticks[0]["multi_gpu_data"][2]
        self.assertEqual((gpu2["memory_used"], gpu2["temperature"], gpu2["power"]), (12825.3, 61, 204.1))
        self.assertEqual(ticks[0]["aggregate_stats"]["gpu_count"], 4)
        r = self.run_gw("export", run_id, "--format", "csv")
        self.assertEqual(len(r.stdout.splitlines()), 1 + 12)
        self.assertIn("power_limit_watts", r.stdout.splitlines()[0])

    def test_training_metadata_becomes_a_mark(self):
        run_id = self.import_file(fixture("seed_wrapper_w7900.json"))[0]
        events = self.report(run_id)["events"]
        marks = [e for e in events if e["kind"] == "mark"]
        self.assertEqual(len(marks), 1)
        self.assertEqual(json.loads(marks[0]["message"])["lr"], "1e-3")
        # Its epoch and phase are the annotations record stores (issue 26).
        self.assertEqual([(e["kind"], e["message"]) for e in events if e["kind"] != "mark"],
                         [("epoch", "1"), ("phase", "training")])

    def test_seed_epochs_and_phases_are_annotations(self):
        # The wrapper's training_metadata on every sample: epochs 1 and 2, each with a training and a
        # validation phase, the batch counting within them (issue 26: "No epochs annotated").
        rows = []
        for i, (epoch, phase, batch) in enumerate([(1, "training", 10), (1, "training", 20), (1, "validation", 1),
                                                  (2, "training", 10), (2, "training", 20), (2, "validation", 1),
                                                  (2, "validation", 2)]):
            rows.append({"timestamp": "2025-08-29T04:35:%02d.000000" % (10 + i), "gpu_name": "AMD Radeon Pro W7900",
                         "gpu_type": "AMD", "utilization": 90 + i, "memory_used": 1424.3, "memory_total": 49152.0,
                         "power": 250.0, "temperature": 75.0, "elapsed_seconds": float(i),
                         "training_metadata": {"epoch": epoch, "batch": batch, "phase": phase, "optimizer": "adamw"}})
        path = os.path.join(self.tmp, "gpu_stats_epochs.json")
        with open(path, "w") as f:
            json.dump(rows, f)
        run_id = self.import_file(path)[0]
        rep = self.report(run_id)
        self.assertEqual([row["label"] for row in rep["epochs"]], ["1", "2"])
        self.assertEqual([row["label"] for row in rep["phases"]], ["training", "validation"])
        self.assertEqual([row["occurrences"] for row in rep["phases"]], [2, 2])
        # One mark: the batch changing is no news.
        self.assertEqual(len([e for e in rep["events"] if e["kind"] == "mark"]), 1)
        text = self.run_gw("report", run_id).stdout
        self.assertIn("Epochs (from annotations)", text)
        out = os.path.join(self.tmp, "epochs.png")
        r = self.run_gw("plot", run_id, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(os.path.getsize(out), 0)

    def test_w7900_sensors_go_through_a_seed_file_and_back(self):
        # The amdgpu fixture's edge 56, junction 73, mem 69 (m°C in hwmon).
        w7900 = tree("sysfs/w7900")
        out = os.path.join(self.tmp, "results")
        r = self.run_gw("record", "--interval", "0.2", "--name", "w7900", "--output-dir", out, "--", "sleep", "0.5",
                        library="/nonexistent/libnvidia-ml.so.1", GPUWATCH_SYSFS_ROOT=w7900)
        self.assertEqual(r.returncode, 0, r.stderr)
        seed = [f for f in os.listdir(out) if f.endswith(".json") and "multi" not in f][0]
        with open(os.path.join(out, seed)) as f:
            rows = json.load(f)
        self.assertEqual({row["gpu_type"] for row in rows}, {"amd"})
        # A first tick may come before the first slow read: no temperatures yet.
        read = [row["temperatures"] for row in rows if "temperatures" in row]
        self.assertTrue(read, rows)
        self.assertEqual(read[0], {"Edge": 56, "Junction": 73, "Memory": 69})
        run_id, fmt = self.import_file(os.path.join(out, seed))[:2]
        self.assertEqual(fmt, "gputop-json")
        rep = self.report(run_id)["devices"][0]
        self.assertEqual(rep["vendor"], "AMD")
        for name, value in [("temp_gpu_celsius", 56), ("temp_junction_celsius", 73), ("temp_mem_celsius", 69)]:
            self.assertEqual(rep["metrics"][name]["max"], value, name)
        # NVIDIA has no junction sensor: none is listed or invented.
        r = self.run_gw("devices", "--json")
        self.assertNotIn("temp_junction_celsius", json.loads(r.stdout)["devices"][0]["metrics"])

    def test_run_as_a_file_is_read_without_storing(self):
        r = self.run_gw("report", fixture("gputop_w7900_cut_mid_string.json"), "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 sample dropped: 1 cut off by the end of the file", r.stderr)
        rep = json.loads(r.stdout)
        self.assertEqual(rep["devices"][0]["samples"], 3)
        self.assertEqual(rep["devices"][0]["vendor"], "AMD")
        self.assertAlmostEqual(rep["devices"][0]["metrics"]["temp_mem_celsius"]["max"], 70)
        self.assertFalse(os.path.exists(self.store))
        r = self.run_gw("export", fixture("gpuwatch_h100.csv"), "--format", "jsonl")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(len(rows), 10)
        self.assertEqual(rows[2]["energy_joules"], 100002.302)
        self.assertFalse(os.path.exists(self.store))

    def test_a_recorded_run_survives_export_and_import(self):
        scenario = QUICK + ";gpu0.util=50;gpu1.util=90;gpu*.mem_used_mib=2000"
        r = self.run_gw("record", "--interval", "0.05", "--name", "orig", "--no-summary", "--", "sleep", "0.6",
                        scenario=scenario)
        self.assertEqual(r.returncode, 0, r.stderr)
        orig = self.report("orig")
        for fmt in ("json", "multi-json", "jsonl", "csv"):
            with self.subTest(fmt):
                path = os.path.join(self.tmp, "orig." + fmt)
                r = self.run_gw("export", "orig", "--format", fmt, "-o", path)
                self.assertEqual(r.returncode, 0, r.stderr)
                back = self.report(path)
                for g_orig, g_back in zip(orig["devices"], back["devices"], strict=True):
                    self.assertEqual(g_back["samples"], g_orig["samples"])
                    for metric in ("gpu_util_percent", "mem_used_bytes", "power_watts"):
                        self.assertAlmostEqual(g_back["metrics"][metric]["max"], g_orig["metrics"][metric]["max"],
                                               delta=0.05 * 2**20 if metric == "mem_used_bytes" else 0.05)

    def test_every_row_of_a_seed_export_has_a_temperature(self):
        # Issue 22 item 19: the first tick precedes the first slow read, so the first row of each GPU had
        # `temperature: null`; the seed tools' scripts take every row's temperature as a number.
        r = self.run_gw("record", "--interval", "0.05", "--name", "temps", "--no-summary", "--", "sleep", "0.5",
                        scenario=QUICK + ";gpu*.temp_c=61")
        self.assertEqual(r.returncode, 0, r.stderr)
        for fmt in ("json", "multi-json"):
            with self.subTest(fmt):
                r = self.run_gw("export", "temps", "--format", fmt)
                self.assertEqual(r.returncode, 0, r.stderr)
                rows = json.loads(r.stdout)
                if fmt == "multi-json":
                    self.assertTrue(all(t["aggregate_stats"]["max_temperature"] == 61 for t in rows), rows[0])
                    rows = [gpu for tick in rows for gpu in tick["multi_gpu_data"]]
                self.assertGreater(len(rows), 4)
                self.assertEqual(sorted({row["gpu_index"] for row in rows}), [0, 1])
                self.assertEqual([row for row in rows if row["temperature"] != 61], [])
                # The first rows carry the first read, marked, with an age of 0 or less (it came after
                # them); where the first read came before the first row (under the sanitizers' slower
                # start), the row holds it unmarked.
                first = next(row for row in rows if row["gpu_index"] == 0)
                if "slow_values_carried" in first:
                    self.assertTrue(first["slow_values_carried"], first)
                    self.assertLessEqual(first["slow_read_age_seconds"], 0)
        # Imported again, the repeated values are dropped: the run keeps the reads it had.
        path = os.path.join(self.tmp, "temps.json")
        self.assertEqual(self.run_gw("export", "temps", "--format", "json", "-o", path).returncode, 0)
        back = self.report(path)
        orig = self.report("temps")
        self.assertEqual(back["devices"][0]["metrics"]["temp_gpu_celsius"]["count"],
                         orig["devices"][0]["metrics"]["temp_gpu_celsius"]["count"])

    def test_live_samples_import(self):
        for fmt, rows in (("jsonl", 3 * 2 + 1), ("csv", 3 * 2)):
            with self.subTest(fmt):
                path = os.path.join(self.tmp, "live." + fmt)
                r = self.run_gw("sample", "--count", "3", "--interval", "0.1", "--format", fmt)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(path, "w") as f:
                    f.write(r.stdout)
                _, got_fmt, read, dropped, _ = self.import_file(path)
                self.assertEqual((got_fmt, dropped), (fmt, 0))
                self.assertGreaterEqual(read, rows)

    def test_bad_files_are_errors(self):
        cases = {
            "empty.json": (b"", "the file is empty"),
            "notes.txt": (b"GPU looked fine today.\n", "not a format gpuwatch imports"),
            "binary.json": (bytes(range(256)) * 4, "not a format gpuwatch imports"),
            "empty_array.json": (b"[]\n", "no sample in this json file"),
            "cut_at_once.json": (b'[\n  {\n    "timestamp": "2025-08-29T04:35:11.6', "no usable sample"),
            "not_samples.json": (b'[{"a": 1}, [2], "three"]', "no usable sample in this json file (3 dropped"),
        }
        self.assert_refused(cases)

    def test_an_oversized_record_is_refused_by_name_and_nothing_is_stored(self):
        # Issue 22 item 12: a 1 GB record took 3 GB and failed in SQLite with "binding a parameter: string or
        # blob too big", naming no file or field. Records are read whole, so their length is what is bounded.
        line = '{"type":"device","wall_ns":1736937000000000000,"gpu_index":0,"power_watts":1}\n'
        big = "n" * (2 << 20)
        cases = {
            "huge.jsonl": (line * 3 + '{"type":"device","wall_ns":1736937000100000000,"gpu_index":0,"gpu_name":"'
                           + big + '"}\n' + line, 'line 4: a record longer than 1 MiB, in the field "gpu_name"'),
            "huge.json": ('[{"timestamp": "2025-01-15T10:30:00", "power": 1}, {"timestamp": "2025-01-15T10:30:01", '
                          '"power": 2, "training_metadata": {"config": "' + big + '"}}]',
                          'element 2 of the array (at byte 51): a record longer than 1 MiB, in the field '
                          '"training_metadata.config"'),
            "huge.csv": ("timestamp,elapsed_s,gpu_index,gpu_name,power_watts\n"
                         "2025-01-15T10:30:00.000Z,0,0,GPU,1\n2025-01-15T10:30:01.000Z,1,0," + big + ",1\n",
                         'line 3: a record longer than 1 MiB, in the field "gpu_name"'),
            "long_name.jsonl": (line + '{"type":"device","wall_ns":1736937000100000000,"gpu_index":0,"gpu_name":"'
                                + "n" * 5000 + '"}\n',
                                'line 2: the field "gpu_name" is 5000 bytes long, longer than the 4096 bytes a '
                                'name may have'),
        }
        self.assert_refused(cases, "nothing was imported")
        # Into a store that holds a run: it holds that run alone after the refusal, no row of another.
        self.import_file(fixture("legacy_a10g.json"))
        r = self.run_gw("import", os.path.join(self.tmp, "huge.jsonl"))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertEqual([run["name"] for run in self.runs()], ["legacy_a10g"])
        with sqlite3.connect(self.store) as db:
            self.assertEqual(db.execute("SELECT count(DISTINCT run_id) FROM sample_chunks").fetchone()[0], 1)
            self.assertEqual(db.execute("SELECT count(*) FROM devices").fetchone()[0], 1)
        db.close()
        # Nothing is left in the directory where the samples waited.
        self.assertEqual(sorted(f for f in os.listdir(self.tmp) if f.startswith("gpuwatch-import")), [])

    def test_the_import_streams_into_the_store_as_the_file_reads_in_memory(self):
        # The same run whether imported (spilled to a file, streamed into the store) or read as RUN (in memory).
        for name in ("gpuwatch_h100.jsonl", "gputop_a10g_multi_gpu.json", "gpuwatch_h100.csv"):
            with self.subTest(name):
                run_id = self.import_file(fixture(name), "--name", name)[0]
                stored, direct = self.report(run_id), self.report(fixture(name))
                for key in ("wall_duration_s", "interval_s"):
                    self.assertEqual(stored["run"][key], direct["run"][key], key)
                self.assertEqual([d["samples"] for d in stored["devices"]], [d["samples"] for d in direct["devices"]])
                for a, b in zip(stored["devices"], direct["devices"], strict=True):
                    for metric, stats in b["metrics"].items():
                        self.assertAlmostEqual(a["metrics"][metric]["mean"], stats["mean"], delta=1e-3 * abs(
                            stats["mean"]) + 1e-6, msg=(name, metric))

    def test_what_is_not_a_regular_file_is_refused_unread(self):
        # /dev/zero was read without end (3 GB after 8 s); a FIFO would wait for a writer.
        fifo = os.path.join(self.tmp, "pipe.json")
        os.mkfifo(fifo)
        for path, what in (("/dev/zero", "a character device"), (fifo, "a FIFO (named pipe)"),
                           (self.tmp, "a directory")):
            for command in (["import", path], ["report", path], ["export", path, "--format", "csv"]):
                with self.subTest(path=path, command=command[0]):
                    r = self.run_gw(*command, timeout=20)
                    self.assertEqual(r.returncode, 1, r.stdout)
                    self.assertIn(f"gpuwatch: error: {path}: {what}, not a regular file", r.stderr)
        self.assertFalse(os.path.exists(self.store))

    def test_absurd_values_are_warned_per_field_and_the_rest_kept(self):
        path = os.path.join(self.tmp, "absurd.json")
        samples = [{"timestamp": f"2025-01-15T10:30:0{i}", "gpu_name": "NVIDIA A10G", "utilization": u,
                    "memory_used": m, "memory_total": 23028, "elapsed_seconds": e}
                   for i, (u, m, e) in enumerate([(50, 1e12, 0), (250, 1024, 1), (60, 2048, 1e9)])]
        with open(path, "w") as f:
            json.dump(samples, f)
        _, _, read, dropped, stderr = self.import_file(path)
        self.assertEqual((read, dropped), (3, 0))
        self.assertIn("1 value was out of range for mem_used_bytes (0 to 1 PiB): taken as absent", stderr)
        self.assertIn("1 value was out of range for gpu_util_percent (0 to 100 %): taken as absent", stderr)
        self.assertIn("1 elapsed-seconds value was negative or beyond 366 days: ignored", stderr)
        rep = self.report()
        self.assertLess(rep["run"]["wall_duration_s"], 10)
        gpu = rep["devices"][0]["metrics"]
        self.assertEqual(gpu["mem_used_bytes"]["max"], 2048 * 2**20)
        self.assertEqual(gpu["gpu_util_percent"]["max"], 60)

    def test_missing_file_or_run(self):
        r = self.run_gw("import", os.path.join(self.tmp, "nope.json"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)
        self.import_file(fixture("legacy_a10g.json"))
        r = self.run_gw("report", os.path.join(self.tmp, "nope.json"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no file", r.stderr)
        r = self.run_gw("report", "nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn("or a file to import", r.stderr)
        self.assertEqual(self.run_gw("import").returncode, 2)
        r = self.run_gw("import", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--name", r.stdout)


# Issue 22 item 10: what a file or a flag puts in a name reaches the terminal escaped.
ESC_GPU = "H100 \x1b[31mred\x1b[0m \u202etxt.exe"
ESC_RUN = "clear\x1b[2Jme"
RAW = ("\x1b", "\u202e", "\x07", "\x9b")


class TerminalEscapes(GpuwatchTestCase):
    import_file = Import.import_file  # its helper, without its tests

    def assert_shown_escaped(self, text, *escaped):
        for raw in RAW:
            self.assertNotIn(raw, text, repr(text))
        for shown in escaped:
            self.assertIn(shown, text)

    def import_hostile_run(self):
        path = os.path.join(self.tmp, "hostile.json")
        rows = [{"timestamp": f"2025-01-15T10:30:0{i}", "gpu_index": 0, "gpu_name": ESC_GPU, "utilization": 80 + i,
                 "memory_used": 12800, "memory_total": 24576, "power": 150} for i in range(4)]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False)
        return self.import_file(path, "--name", ESC_RUN)[0]

    def test_report_runs_compare_status_and_rm_show_names_escaped(self):
        run_id = self.import_hostile_run()
        self.import_hostile_run()
        shown_run, shown_gpu = "clear\\x1b[2Jme", "\\x1b[31mred\\x1b[0m \\u202etxt.exe"
        for args, escaped in [
            (["report", run_id], [shown_run, shown_gpu]),
            (["report", run_id, "--format", "markdown"], [shown_run, shown_gpu]),
            (["runs"], [shown_run]),
            (["compare", run_id, "last"], [shown_run]),
            (["compare", run_id, "last", "--format", "markdown"], [shown_run]),
            (["status", run_id], [shown_run]),
            (["top", "--once", "--run", run_id, "--width", "120"], [shown_run]),
            (["rm", run_id, "--dry-run"], [shown_run]),
        ]:
            with self.subTest(args[0], args=args):
                r = self.run_gw(*args)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assert_shown_escaped(r.stdout + r.stderr, *escaped)
        # A name given on the command line that matches nothing: the error shows it escaped too.
        r = self.run_gw("report", "no\x1b[2Jsuch")
        self.assertEqual(r.returncode, 1)
        self.assert_shown_escaped(r.stderr, "no\\x1b[2Jsuch")

    def test_json_escapes_them_and_reads_back_the_same(self):
        run_id = self.import_hostile_run()
        for args, name in ((["runs", "--format", "json"], lambda doc: doc["runs"][0]["name"]),
                           (["report", run_id, "--format", "json"], lambda doc: doc["run"]["name"]),
                           (["status", run_id, "--format", "json"], lambda doc: doc["run"]["name"])):
            with self.subTest(args[0]):
                r = self.run_gw(*args)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assert_shown_escaped(r.stdout, "\\u001b[2J")
                self.assertEqual(name(json.loads(r.stdout)), ESC_RUN)
        self.assertEqual(self.report(run_id)["devices"][0]["name"], ESC_GPU)

    def test_the_live_gpu_name_and_records_summary_are_escaped(self):
        scenario = QUICK + ";gpu_count=1;gpu0.name=" + ESC_GPU
        for args in (["devices"], ["top", "--once", "--width", "120"]):
            with self.subTest(args[0]):
                r = self.run_gw(*args, scenario=scenario)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assert_shown_escaped(r.stdout, "\\u202etxt.exe")
        r = self.run_gw("record", "--name", ESC_RUN, "--interval", "0.05", "--", "sleep", "0.3", scenario=scenario)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_shown_escaped(r.stderr, "clear\\x1b[2Jme")
