"""gpuwatch bench against stand-in workers (fake_workers/) and the fake NVML driver."""
import json
import os

from harness import GpuwatchTestCase, QUICK

FAKE_WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers")
TWO_GPUS = QUICK + ";gpu_count=2;gpu*.util=95"


class Bench(GpuwatchTestCase):
    def bench(self, *args, scenario=TWO_GPUS, **extra):
        out = os.path.join(self.tmp, "bench.json")
        extra.setdefault("GPUWATCH_BENCH_WORKER_DIR", FAKE_WORKERS)
        r = self.run_gw("bench", "--quick", "-o", out, *args, scenario=scenario, **extra)
        data = None
        if os.path.exists(out):
            with open(out) as f:
                data = json.load(f)
        return r, data

    def test_all_suites_on_two_gpus(self):
        r, data = self.bench("--metrics-interval", "0.05")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(data["test_summary"]["total_tests"], 5 + 2 * 2)
        self.assertEqual(data["test_summary"]["failed_tests"], 0)
        self.assertEqual(data["system_info"]["gpu_names"], ["NVIDIA H100 80GB HBM3"] * 2)
        self.assertEqual(data["system_info"]["cuda_version"], "13.0")
        self.assertEqual(data["system_info"]["pytorch_version"], "9.9")
        by_name = {(t["test_name"], t["gpu"]): t for t in data["results"]}
        mm = by_name[("matmul_bf16_4096_gpu1", 1)]
        self.assertEqual(mm["achieved_tflops"], 710.0)
        self.assertAlmostEqual(mm["percent_of_peak"], 100 * 710 / 989.4, places=6)
        self.assertIn("H100 SXM5", mm["peak_source"])
        # What the sampler saw during the test: the fake runs the GPUs at 95 %.
        self.assertEqual(mm["peak_gpu_utilization_percent"], 95)
        self.assertEqual(mm["gpu_utilization_stats"]["avg"], 95)
        self.assertGreaterEqual(mm["gpu_utilization_stats"]["samples"], 3)  # 0.3 s at 0.05 s
        self.assertIsNotNone(mm["gpu_power_stats"])
        self.assertIsNotNone(mm["cpu_utilization_stats"])
        # The model suite ran on both GPUs at once; the same test is compared across them.
        train = by_name[("train_simple_cnn_bs32", 0)]
        self.assertEqual(train["throughput_samples_per_second"], 3200)
        spreads = {s["test"]: s for s in data["per_gpu"]}
        self.assertEqual(spreads["matmul_bf16_4096"]["gpus"], [0, 1])
        self.assertAlmostEqual(spreads["matmul_bf16_4096"]["cv_percent"], 100 * 5 / 705, places=6)
        self.assertIn("train_simple_cnn_bs32", spreads)
        self.assertIn("matmul_bf16_4096_gpu1", r.stdout)
        self.assertIn("TFLOP/s", r.stdout)
        self.assertEqual(len(data["test_summary"]["warnings"]), 3)  # each worker printed a junk line
        self.assertIn("line(s) that are not messages (the first: not a JSON object)", r.stdout)

    def test_a_failed_test_fails_the_run(self):
        r, data = self.bench("--suite", "micro", FAKE_WORKER_FAIL="membw_copy_gpu0")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(data["test_summary"]["failed_tests"], 1)
        failed = [t for t in data["results"] if not t["success"]]
        self.assertEqual(failed[0]["error_message"], "CUDA error: out of memory")
        self.assertIn("FAILED membw_copy_gpu0: CUDA error: out of memory", r.stdout)

    def test_a_worker_that_dies_fails_the_run(self):
        r, data = self.bench("--suite", "models", "--gpus", "1", FAKE_WORKER_EXIT="3")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(data["test_summary"]["failed_tests"], 0)
        self.assertTrue(any("exit status 3" in e for e in data["test_summary"]["errors"]))

    def test_cpu_models_without_a_gpu(self):
        r, data = self.bench("--device", "cpu", "--suite", "models", library="/nonexistent/libnvidia-ml.so")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([t["gpu"] for t in data["results"]], [None, None])
        self.assertIsNone(data["results"][0]["gpu_utilization_stats"])
        self.assertIsNotNone(data["results"][0]["cpu_utilization_stats"])

    def only_workers(self, *kinds):
        """A worker folder with only these stand-ins, as a build without libtorch (or CUDA) has."""
        folder = os.path.join(self.tmp, "workers-" + "-".join(kinds))
        os.makedirs(folder)
        for kind in kinds:
            name = "gpuwatch-bench-" + kind
            os.symlink(os.path.join(FAKE_WORKERS, name), os.path.join(folder, name))
        return folder

    def test_the_default_suite_runs_what_is_built_and_says_what_is_not(self):
        # Issue 22 item 17: after the README's set-up `bench --quick` stopped at "the torch worker is not there".
        r, data = self.bench(GPUWATCH_BENCH_WORKER_DIR=self.only_workers("cuda"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(data["test_summary"]["total_tests"], 5)
        self.assertEqual({t["worker"] for t in data["results"]}, {"cuda"})
        skipped = data["test_summary"]["skipped"]
        self.assertEqual(len(skipped), 1, skipped)
        self.assertIn("the models suite: the torch worker is not there", skipped[0])
        self.assertIn("scripts/install-deps.sh --bench", skipped[0])
        self.assertIn("skipped the models suite: the torch worker is not there", r.stdout)
        r, data = self.bench(GPUWATCH_BENCH_WORKER_DIR=self.only_workers("torch"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual({t["worker"] for t in data["results"]}, {"torch"})
        self.assertIn("the micro suite: the cuda worker is not there", data["test_summary"]["skipped"][0])
        self.assertIn("CUDA toolkit", r.stdout)
        # Both built: nothing skipped.
        r, data = self.bench()
        self.assertEqual((r.returncode, data["test_summary"]["skipped"]), (0, []))
        self.assertNotIn("skipped", r.stdout)

    def test_a_suite_asked_for_by_name_must_be_there(self):
        r, data = self.bench("--suite", "models", GPUWATCH_BENCH_WORKER_DIR=self.only_workers("cuda"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the torch worker is not there", r.stderr)
        self.assertIsNone(data)
        # Nothing built: nothing ran, and the error says how to get each suite.
        r, data = self.bench(GPUWATCH_BENCH_WORKER_DIR=self.only_workers())
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no bench suite can run here", r.stderr)
        self.assertIn("CUDA toolkit", r.stderr)
        self.assertIn("scripts/install-deps.sh --bench", r.stderr)

    def test_compare_two_result_files(self):
        r, a = self.bench("--suite", "micro")
        self.assertEqual(r.returncode, 0, r.stderr)
        a_path = os.path.join(self.tmp, "a.json")
        os.rename(os.path.join(self.tmp, "bench.json"), a_path)
        b = dict(a)
        b["results"] = [dict(t) for t in a["results"]]
        for t in b["results"]:
            if t["achieved_tflops"]:
                t["achieved_tflops"] *= 1.1
        b_path = os.path.join(self.tmp, "b.json")
        with open(b_path, "w") as f:
            json.dump(b, f)
        r = self.run_gw("bench", "compare", a_path, b_path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"matmul_bf16_4096_gpu0\s+0\s+700\.00\s+770\.00\s+1\.10\s+TFLOP/s")
        self.assertRegex(r.stdout, r"launch_latency_gpu0\s+0\s+2\.50\s+2\.50\s+1\.00")

    def test_errors(self):
        cases = [
            (["--suite", "micro", "--device", "cpu"], 1, "with --device cpu run --suite models"),
            (["--gpus", "7"], 1, "there is no GPU 7"),
            (["--suite", "everything"], 2, "--suite"),
        ]
        for args, code, message in cases:
            r, _ = self.bench(*args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(message, r.stderr)
        r = self.run_gw("bench", "--quick", "-o", os.path.join(self.tmp, "x.json"),
                        GPUWATCH_BENCH_WORKER_DIR=self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("worker is not there", r.stderr)
        for files in (["/no/such.json", "/no/other.json"], [__file__, __file__]):
            r = self.run_gw("bench", "compare", *files)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("gpuwatch: error:", r.stderr)
        r = self.run_gw("bench", "compare", "only-one.json")
        self.assertEqual(r.returncode, 2)
