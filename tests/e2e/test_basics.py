"""--version, --help, devices and sample."""
import csv
import io
import json
import os
import re

from harness import BIN, FAKE_NVML_OLD, FIXTURES, GpuwatchTestCase, tree

COMMANDS = ["devices", "sample", "record", "runs", "rm", "prune", "report", "compare", "plot", "export", "import"]


class Basics(GpuwatchTestCase):
    def test_version(self):
        r = self.run_gw("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^gpuwatch \d+\.\d+\.\d+")

    def test_help_for_every_command(self):
        for cmd in COMMANDS:
            r = self.run_gw(cmd, "--help")
            self.assertEqual(r.returncode, 0, cmd)
            self.assertIn("Usage", r.stdout, cmd)
        r = self.run_gw("--help")
        for cmd in COMMANDS:
            self.assertIn(cmd, r.stdout)

    def test_usage_errors_exit_2(self):
        self.assertEqual(self.run_gw().returncode, 2)
        self.assertEqual(self.run_gw("frobnicate").returncode, 2)
        self.assertEqual(self.run_gw("sample", "--format", "xml").returncode, 2)
        r = self.run_gw("sample", "--interval", "0.001")
        self.assertEqual(r.returncode, 2)
        self.assertIn("interval", r.stderr)

    def test_devices_lists_fake_gpus_with_facts(self):
        r = self.run_gw("devices", scenario="gpu_count=3;gpu*.unsupported=fan")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("NVIDIA H100 80GB HBM3"), 3)
        self.assertIn("0000:20:00.0", r.stdout)
        data = json.loads(self.run_gw("devices", "--json", scenario="gpu_count=3;gpu*.unsupported=fan").stdout)
        self.assertEqual([d["gpu"] for d in data["devices"]], [0, 1, 2])
        gpu = data["devices"][0]
        self.assertEqual(gpu["vendor"], "NVIDIA")
        self.assertEqual(gpu["static"]["sm_clock_max_mhz"], 1980)
        self.assertEqual(gpu["static"]["mem_total_bytes"], 81559 * 1024 * 1024)
        self.assertIn("power_watts", gpu["metrics"])
        self.assertIn("energy_joules", gpu["metrics"])
        self.assertNotIn("fan_percent", gpu["metrics"])

    def test_devices_without_driver_says_so(self):
        # Exit 9, as nvidia-smi without a driver; the reason on stderr.
        r = self.run_gw("devices", library="/nonexistent/libnvidia-ml.so.1")
        self.assertEqual(r.returncode, 9)
        self.assertIn("no GPU found", r.stderr)
        self.assertIn("NVIDIA", r.stderr)
        r = self.run_gw("devices", scenario="init_error=9")
        self.assertEqual(r.returncode, 9)
        self.assertIn("no GPU found: ", r.stderr)

    def test_amd_gpus_from_sysfs_without_nvidia_driver(self):
        root = tree("sysfs/mi300x")
        r = self.run_gw("devices", "--json", library="/nonexistent/libnvidia-ml.so.1", GPUWATCH_SYSFS_ROOT=root)
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual([d["gpu"] for d in data["devices"]], [0, 1])
        gpu = data["devices"][0]
        self.assertEqual((gpu["vendor"], gpu["backend"], gpu["name"]), ("AMD", "amdgpu", "AMD Instinct MI300X OAM"))
        self.assertEqual(gpu["pci_bus_id"], "0000:05:00.0")
        self.assertEqual(gpu["static"]["mem_total_bytes"], 205822885888)
        self.assertIn("power_watts", gpu["metrics"])
        self.assertNotIn("fan_percent", gpu["metrics"])
        self.assertIn("energy_joules", gpu["metrics"])  # from gpu_metrics: hwmon has none
        self.assertEqual(len(data["notes"]), 1)  # NVIDIA's reason
        r = self.run_gw("sample", "--count", "2", "--interval", "0.05", "--format", "csv",
                        library="/nonexistent/libnvidia-ml.so.1", GPUWATCH_SYSFS_ROOT=root)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(len(rows), 4)  # 2 ticks x 2 GPUs
        first = [row for row in rows if row["gpu"] == "0"][0]
        self.assertEqual(float(first["gpu_util_percent"]), 97)
        self.assertEqual(float(first["power_watts"]), 305)
        self.assertEqual(float(first["temp_gpu_celsius"]), 49)

    def test_amd_and_intel_gpus_are_named_by_pci_id(self):
        # Issue 22: a W7900 (no product_name) was "AMD GPU 0x7448", an Arc Pro B50 "Intel GPU 0xe212".
        def names(sysfs, share):
            r = self.run_gw("devices", "--json", library="/nonexistent/libnvidia-ml.so.1",
                            GPUWATCH_SYSFS_ROOT=tree(sysfs), GPUWATCH_SHARE_ROOT=share)
            self.assertEqual(r.returncode, 0, r.stderr)
            return [d["name"] for d in json.loads(r.stdout)["devices"]]
        lists = os.path.join(FIXTURES, "share")  # lines of libdrm's amdgpu.ids and of pci.ids
        none = os.path.join(self.tmp, "no-share")  # neither installed: the built-in table, then the id
        self.assertEqual(names("sysfs/w7900", lists), ["AMD Radeon Pro W7900"])  # amdgpu.ids
        self.assertEqual(names("sysfs/w7900", none), ["AMD Radeon Pro W7900"])  # built in
        self.assertEqual(names("sysfs/bmc", lists), ["AMD Radeon RX 7900 XTX"])  # amdgpu.ids, revision 0xc8
        self.assertEqual(names("sysfs/bmc", none), ["AMD GPU 0x744c"])  # four RX models: not built in
        self.assertEqual(names("sysfs/arc_b50_xe", lists), ["Intel Arc Pro B50"])  # pci.ids
        self.assertEqual(names("sysfs/arc_b50_xe", none), ["Intel Arc Pro B50"])
        self.assertEqual(names("sysfs/i915_igpu", lists), ["Intel Iris Xe Graphics"])
        self.assertEqual(names("sysfs/mi300x", none), ["AMD Instinct MI300X OAM"] * 2)  # the board's own name

    def test_other_users_processes_hidden_from_the_fdinfo_scan_are_said_with_the_run(self):
        r = self.run_gw("record", "--interval", "0.1", "--", "sleep", "1.3", library="/nonexistent/libnvidia-ml.so.1",
                        GPUWATCH_SYSFS_ROOT=tree("sysfs/w7900"), GPUWATCH_PROCFS_ROOT=tree("procfs/drm_amdgpu"))
        self.assertEqual(r.returncode, 0, r.stderr)
        hidden = [e for e in self.report()["events"] if e["kind"] == "processes_hidden"]
        self.assertEqual(len(hidden), 1, hidden)  # 3001's fds cannot be listed (fixtures/procfs/README.md)
        self.assertTrue(hidden[0]["message"].startswith("1 process of other users"), hidden[0]["message"])

    def test_old_driver_falls_back(self):
        r = self.run_gw("devices", "--json", library=FAKE_NVML_OLD)
        self.assertEqual(r.returncode, 0, r.stderr)
        gpu = json.loads(r.stdout)["devices"][0]
        self.assertIn("mem_used_bytes", gpu["metrics"])
        self.assertNotIn("energy_joules", gpu["metrics"])

    def test_sample_csv_count(self):
        r = self.run_gw("sample", "--count", "3", "--interval", "0.05", "--format", "csv",
                        scenario="pcie_delay_ms=0;energy_delay_ms=0;gpu*.util=37")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(len(rows), 6)  # 3 ticks x 2 GPUs
        self.assertEqual(sorted({row["gpu"] for row in rows}), ["0", "1"])
        self.assertEqual(float(rows[0]["gpu_util_percent"]), 37)
        self.assertEqual(float(rows[0]["power_watts"]), 120 + 5.8 * 37)

    def test_sample_jsonl_has_host_rows_and_duration(self):
        r = self.run_gw("sample", "--duration", "0.3", "--interval", "0.1", "--format", "jsonl", "--gpus", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        devices = [x for x in lines if x["type"] == "device"]
        self.assertEqual(len(devices), 3)
        self.assertTrue(all(x["gpu"] == 1 for x in devices))
        self.assertTrue(any(x["type"] == "host" and "mem_total_bytes" in x for x in lines))
        # Slow values (read once a second) are on every row: the read's own, or
        # repeated with their age and marked (issue 10: 8 of 12 rows had none).
        self.assertEqual(devices[0].get("slow_values_carried"), None)
        for later in devices[1:]:
            self.assertEqual(later["temp_gpu_celsius"], devices[0]["temp_gpu_celsius"])
            self.assertTrue(later["slow_values_carried"])
            self.assertGreater(later["slow_read_age_seconds"], devices[0]["slow_read_age_seconds"])
            self.assertNotIn("energy_joules", later)

    def test_sample_table(self):
        r = self.run_gw("sample", "--count", "2", "--interval", "0.05")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # As nvidia-smi dmon: the metrics' tags, then their units (docs/metrics.md).
        self.assertEqual(lines[0].split()[:5], ["#", "time", "gpu", "util", "mutil"], lines)
        self.assertEqual(lines[1].split()[:4], ["#", "%", "%", "GiB"], lines)
        self.assertEqual(len(lines), 6)
        self.assertRegex(lines[2], r"^\d\d:\d\d:\d\d\.\d{3}\s+0\s+0\s")
        # Metrics read once a second are repeated on the ticks between.
        self.assertEqual(lines[0].split()[7 + 1], "temp", lines)
        self.assertEqual(lines[4].split()[7], "34", lines)  # temperature of GPU 0, second tick

    def test_sample_bad_gpu_list(self):
        for bad in ["7", "a", "2-1", ""]:
            r = self.run_gw("sample", "--count", "1", "--gpus", bad)
            self.assertNotEqual(r.returncode, 0, bad)
            self.assertIn("gpus", r.stderr, bad)
            self.assertNotIn("Traceback", r.stderr)
        self.assertTrue(re.search(r"no GPU 7", self.run_gw("sample", "--count", "1", "--gpus", "7").stderr))
