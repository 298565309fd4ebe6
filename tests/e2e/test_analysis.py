"""report and export over recorded runs: numbers that must come out right."""
import csv
import io
import json
import os
import shutil

from harness import GpuwatchTestCase, QUICK, tree


class Report(GpuwatchTestCase):
    def test_statistics_energy_and_balance(self):
        # GPU 0 at 50 %, GPU 1 at 90 %: power 410 W and 642 W in the fake's model.
        scenario = QUICK + ";gpu0.util=50;gpu1.util=90;gpu0.mem_used_mib=1000;gpu1.mem_used_mib=1000"
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "2.5", scenario=scenario)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        g0, g1 = rep["devices"]
        self.assertAlmostEqual(g0["metrics"]["gpu_util_percent"]["mean"], 50)
        self.assertAlmostEqual(g1["metrics"]["gpu_util_percent"]["p95"], 90)
        self.assertAlmostEqual(g0["metrics"]["power_watts"]["mean"], 410, places=6)
        self.assertAlmostEqual(g0["metrics"]["mem_used_bytes"]["max"], 1000 * 2**20)
        # Energy from the counter agrees with integrated power over the same span.
        e = g0["energy"]
        self.assertEqual(e["source"], "counter")
        self.assertGreater(e["counter_joules"], 410 * 1.5)
        self.assertAlmostEqual(e["counter_joules"] / e["integrated_counter_span_joules"], 1, delta=0.01)
        self.assertAlmostEqual(e["wh"], e["joules"] / 3600)
        bal = {b["metric"]: b for b in rep["load_balance"]}
        # means 50 and 90: std 20, mean 70 -> CV 28.6 % (poor)
        self.assertAlmostEqual(bal["gpu_util_percent"]["cv_percent"], 100 * 20 / 70, places=6)
        self.assertEqual(bal["gpu_util_percent"]["quality"], "poor")
        self.assertIsNone(bal["gpu_util_percent"]["straggler_gpu"])  # two GPUs: a tie
        self.assertEqual(bal["mem_used_bytes"]["quality"], "excellent")
        text = self.run_gw("report", "last").stdout
        self.assertRegex(text, r"utilization %\s+28\.6\s+poor\s+GPU 0 50\.0 vs GPU 1 90\.0")
        self.assertIn("from the driver's energy counter", text)

    def test_duty_cycle_shows_in_the_mean(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "4",
                        scenario=QUICK + ";gpu_count=1;gpu0.util=busy:1,idle:1")
        self.assertEqual(r.returncode, 0, r.stderr)
        util = self.report()["devices"][0]["metrics"]["gpu_util_percent"]
        self.assertAlmostEqual(util["mean"], 50, delta=8)
        self.assertEqual(util["min"], 0)
        self.assertEqual(util["max"], 100)

    def test_lost_gpu_is_marked_and_the_other_keeps_going(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "2",
                        scenario=QUICK + ";gpu1.lost_after_s=0.7")
        self.assert_gpu1_lost_and_gpu0_kept_going(r)
        self.assertIn("LOST at", self.run_gw("report", "last").stdout)

    def assert_gpu1_lost_and_gpu0_kept_going(self, record):
        """The recorded run of two GPUs whose second was lost about a third of the way in."""
        self.assertEqual(record.returncode, 0, record.stderr)
        self.assertIn("GPU 1 was lost", record.stderr)
        rep = self.report()
        g0, g1 = rep["devices"]
        self.assertIsNone(g0["lost_at"])
        self.assertIsNotNone(g1["lost_at"])
        self.assertGreater(g0["samples"], g1["samples"] + 15)
        self.assertTrue(any(e["kind"] == "gpu_lost" and e["gpu"] == 1 for e in rep["events"]))
        return rep

    def test_amd_gpu_removed_from_sysfs_is_lost_and_the_other_keeps_going(self):
        # A copy of the two-MI300X tree; the recorded command removes the second GPU's PCI
        # device half-way, as a hot-unplug removes its sysfs directory.
        root = os.path.join(self.tmp, "sysfs")
        shutil.copytree(tree("sysfs/mi300x"), root, symlinks=True)
        gone = os.path.join(root, "devices", "pci0000:10")
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sh", "-c",
                        f"sleep 0.7; rm -rf '{gone}'; sleep 1.3",
                        library="/nonexistent/libnvidia-ml.so.1", GPUWATCH_SYSFS_ROOT=root)
        rep = self.assert_gpu1_lost_and_gpu0_kept_going(r)
        self.assertAlmostEqual(rep["devices"][0]["metrics"]["power_watts"]["mean"], 305)

    def test_processes_of_the_command_are_listed(self):
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--", "sleep", "1.5",
                        scenario=QUICK + ";gpu_count=1;gpu0.add_processes=descendants;gpu0.processes=4321:na")
        self.assertEqual(r.returncode, 0, r.stderr)
        procs = self.report()["processes"]
        names = {p["name"] for p in procs}
        self.assertIn("sleep", names)
        self.assertTrue(any(p["pid"] == 4321 and p["max_used_memory_bytes"] is None for p in procs))
        sleep = next(p for p in procs if p["name"] == "sleep")
        self.assertEqual(sleep["max_used_memory_bytes"], 2**30)

    def test_process_tree_cpu_is_measured(self):
        burn = "import time\nt=time.time()\nwhile time.time()-t<2.0: pass\n"
        r = self.run_gw("record", "--interval", "0.1", "--no-summary", "--", "python3", "-c", burn)
        self.assertEqual(r.returncode, 0, r.stderr)
        host = self.report()["host"]
        self.assertGreater(host["tree_cpu_percent"]["max"], 40)
        self.assertGreater(host["tree_rss_bytes"]["max"], 1e6)

    def test_unknown_run_and_missing_store_are_clear_errors(self):
        r = self.run_gw("report", "nope")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("gpuwatch: error:", r.stderr)
        self.run_gw("record", "--no-summary", "--", "true")
        r = self.run_gw("report", "nope")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("nope", r.stderr)
        self.assertEqual(self.run_gw("runs").returncode, 0)

    def test_garbage_store_file_is_an_error_not_a_crash(self):
        with open(self.store, "w") as f:
            f.write("this is not a database\n" * 100)
        for args in (["runs"], ["report", "last"], ["record", "--", "true"]):
            r = self.run_gw(*args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn("gpuwatch: error:", r.stderr, args)
            self.assertLess(r.returncode, 128, args)


class Export(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        r = self.run_gw("record", "--interval", "0.05", "--name", "exp", "--no-summary", "--", "sleep", "0.6",
                        scenario=QUICK + ";gpu*.util=60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.samples = self.report("exp")["devices"][0]["samples"]

    def test_json_every_gpu_or_one(self):
        data = json.loads(self.run_gw("export", "exp", "--format", "json").stdout)
        self.assertEqual(len(data), 2 * self.samples)
        self.assertEqual({d["gpu_index"] for d in data}, {0, 1})
        one = json.loads(self.run_gw("export", "exp", "--format", "json", "--gpu", "1").stdout)
        self.assertEqual(len(one), self.samples)
        self.assertNotEqual(self.run_gw("export", "exp", "--format", "json", "--gpu", "4").returncode, 0)

    def test_multi_json(self):
        data = json.loads(self.run_gw("export", "exp", "--format", "multi-json").stdout)
        self.assertEqual(len(data), self.samples)
        self.assertEqual(data[0]["aggregate_stats"]["average_utilization"], 60)

    def test_jsonl_and_csv_to_a_file(self):
        path = os.path.join(self.tmp, "out.csv")
        r = self.run_gw("export", "exp", "--format", "csv", "-o", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2 * self.samples)
        self.assertEqual(float(rows[0]["gpu_util_percent"]), 60)
        lines = [json.loads(l) for l in self.run_gw("export", "exp", "--format", "jsonl").stdout.splitlines()]
        self.assertEqual(sum(1 for l in lines if l["type"] == "device"), 2 * self.samples)
        self.assertTrue(any(l["type"] == "host" for l in lines))
        times = [l["wall_ns"] for l in lines]
        self.assertEqual(times, sorted(times))

    def test_export_to_unwritable_path_fails_cleanly(self):
        r = self.run_gw("export", "exp", "--format", "csv", "-o", "/proc/nope/out.csv")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot create", r.stderr)
