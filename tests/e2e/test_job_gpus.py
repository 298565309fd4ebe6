"""Which GPUs are the job's (issue 9): CUDA_VISIBLE_DEVICES, else the command's process tree."""
import json
import os
import subprocess

from harness import GpuwatchTestCase, QUICK, tree

# A shared node: GPU 0 is another job's (pid 1 is never the command's), idle
# with its model loaded; GPU 1 runs the recorded command, busy and well filled.
SHARED = (QUICK + ";gpu_count=2;gpu0.util=0;gpu0.mem_used_mib=20000;gpu0.processes=1:20971520000"
          ";gpu1.util=97;gpu1.mem_used_mib=65000;gpu1.add_processes=descendants")
THREE = QUICK + ";gpu_count=3"


class JobGpus(GpuwatchTestCase):
    def recorded(self, report):
        return [d["gpu"] for d in report["devices"]]

    def test_another_jobs_idle_gpu_does_not_stop_the_command(self):
        r = self.run_gw("record", "--interval", "0.05", "--check-interval", "0.5", "--advise",
                        "--advisor-config", self.short_advisor_config(), "--on-underuse", "kill", "--after", "1",
                        "--", "sleep", "5", scenario=SHARED, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("stopping the command", r.stderr)
        self.assertIn("job GPUs: 1 (where the command's processes ran); also recorded, not judged: 0", r.stderr)
        self.assertNotRegex(r.stderr, r"\] [a-z_.]+ GPU 0")  # no advisory about GPU 0
        text = self.run_gw("report", "last").stdout
        self.assertIn("Job GPUs  1 (where the command's processes ran); also recorded, not judged: 0", text)
        # The recorder's own job_gpus event: said in words above, listed only with --full and in the JSON.
        self.assertNotIn("source=process_tree", text)
        self.assertIn("source=process_tree", self.run_gw("report", "last", "--full").stdout)
        report = self.report()
        self.assertIn("job_gpus", [e["kind"] for e in report["events"]])
        self.assertEqual(report["job_gpus"], {"source": "process_tree", "gpus": [1]})
        self.assertEqual(self.recorded(report), [0, 1])
        self.assertEqual(report["load_balance"], [])  # one job GPU: nothing to balance
        status = json.loads(self.run_gw("status", "--format", "json", "--no-remember").stdout)
        self.assertEqual(status["job_gpus"], {"source": "process_tree", "gpus": [1]})
        self.assertEqual([g["job"] for g in status["gpus"]], [False, True])
        self.assertEqual([a for a in status["advisories"] if a["gpu"] == 0], [])

    def test_a_neighbours_light_load_does_not_stop_an_unseen_command(self):
        # Issue 22: the command's processes are invisible to the driver (a container); GPU 0 is
        # busy with it, GPU 1 holds another tenant's light load. Before the fix: exit 75.
        unseen = (QUICK + ";gpu_count=2;gpu0.util=95;gpu0.mem_used_mib=60000"
                  ";gpu1.util=10;gpu1.mem_used_mib=20000;gpu1.processes=1:20971520000")
        kill = ["--interval", "0.05", "--check-interval", "0.5", "--advise", "--advisor-config",
                self.short_advisor_config(), "--on-underuse", "kill", "--after", "1"]
        r = self.run_gw("record", *kill, "--", "sleep", "5", scenario=unseen, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("stopping the command", r.stderr)
        # Seen and said, only not acted on (host_bound when the test machine's CPUs are busy).
        self.assertRegex(r.stderr, r"util\.(low|host_bound) GPU 1")
        self.assertEqual(self.report()["job_gpus"]["source"], "command_not_seen")
        # Every candidate low: then it acts.
        idle = QUICK + ";gpu_count=2;gpu0.util=5;gpu1.util=10"
        r = self.run_gw("record", *kill, "--", "sleep", "30", scenario=idle, timeout=60)
        self.assertEqual(r.returncode, 75, r.stderr)

    def test_cuda_visible_devices_picks_what_is_recorded_and_judged(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.3", scenario=THREE,
                        CUDA_VISIBLE_DEVICES="2,0")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = self.report()
        self.assertEqual(self.recorded(report), [0, 2])
        self.assertEqual(report["job_gpus"], {"source": "cuda_visible_devices", "gpus": [0, 2],
                                              "variables": ["CUDA_VISIBLE_DEVICES"]})
        self.assertIn("Job GPUs  0, 2 (CUDA_VISIBLE_DEVICES)", self.run_gw("report", "last").stdout)
        # By UUID, and --gpus records more while the job's stay the job's.
        r = self.run_gw("record", "--interval", "0.05", "--gpus", "0,1", "--", "true", scenario=THREE,
                        CUDA_VISIBLE_DEVICES="GPU-fa4e0000-0000-4000-8000-000000000001")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = self.report()
        self.assertEqual(self.recorded(report), [0, 1])
        self.assertEqual(report["job_gpus"], {"source": "cuda_visible_devices", "gpus": [1],
                                              "variables": ["CUDA_VISIBLE_DEVICES"]})

    def test_amd_gpus_are_chosen_by_rocr_then_hip(self):
        # Two MI300X (tests/fixtures/sysfs/mi300x); no NVIDIA driver.
        amd = dict(library="/nonexistent/libnvidia-ml.so.1", GPUWATCH_SYSFS_ROOT=tree("sysfs/mi300x"))
        r = self.run_gw("record", "--interval", "0.05", "--", "true", ROCR_VISIBLE_DEVICES="GPU-c03e8b17",
                        HIP_VISIBLE_DEVICES="0", **amd)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = self.report()
        self.assertEqual(self.recorded(report), [1])
        self.assertEqual(report["job_gpus"], {"source": "cuda_visible_devices", "gpus": [1],
                                              "variables": ["ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"]})
        self.assertIn("Job GPUs  1 (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES)", self.run_gw("report", "last").stdout)
        # HIP reads CUDA_VISIBLE_DEVICES too.
        r = self.run_gw("record", "--interval", "0.05", "--", "true", CUDA_VISIBLE_DEVICES="0", **amd)
        self.assertEqual(self.recorded(self.report()), [0])

    def test_cuda_visible_devices_that_hides_every_gpu(self):
        for value in ["", "-1"]:
            r = self.run_gw("record", "--interval", "0.05", "--", "true", scenario=THREE, CUDA_VISIBLE_DEVICES=value)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("shows the command no GPU", r.stderr)
            self.assertEqual(self.recorded(self.report()), [])

    def test_an_index_that_cannot_be_matched_is_not_guessed(self):
        # Mixed models under CUDA's default FASTEST_FIRST order: CUDA's index 1 may not be NVML's.
        mixed = THREE + ";gpu0.name=NVIDIA A100-SXM4-80GB"
        r = self.run_gw("record", "--interval", "0.05", "--", "true", scenario=mixed, CUDA_VISIBLE_DEVICES="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("CUDA_DEVICE_ORDER=PCI_BUS_ID", r.stderr)
        self.assertEqual(self.recorded(self.report()), [0, 1, 2])
        r = self.run_gw("record", "--interval", "0.05", "--", "true", scenario=mixed, CUDA_VISIBLE_DEVICES="1",
                        CUDA_DEVICE_ORDER="PCI_BUS_ID")
        self.assertEqual(self.recorded(self.report()), [1])
        # A bad entry hides itself and the rest, as in CUDA, and says so.
        r = self.run_gw("record", "--interval", "0.05", "--", "true", scenario=THREE, CUDA_VISIBLE_DEVICES="0,7,1")
        self.assertIn("'7' is past the last GPU", r.stderr)
        self.assertEqual(self.recorded(self.report()), [0])

    def test_an_attached_process_is_judged_by_its_own_cuda_visible_devices(self):
        target = subprocess.Popen(["sleep", "30"], env=dict(os.environ, CUDA_VISIBLE_DEVICES="2"))
        try:
            gw = self.start_gw("record", "--interval", "0.05", "--no-summary", "--pid", str(target.pid),
                               scenario=THREE, CUDA_VISIBLE_DEVICES="0")
            self.wait_for(lambda: self.runs(), what="the run to start")
            target.kill()
            target.wait()
            gw.communicate(timeout=30)
        finally:
            if target.poll() is None:
                target.kill()
        report = self.report()
        self.assertEqual(self.recorded(report), [2])
        self.assertEqual(report["job_gpus"], {"source": "cuda_visible_devices", "gpus": [2],
                                              "variables": ["CUDA_VISIBLE_DEVICES"]})
