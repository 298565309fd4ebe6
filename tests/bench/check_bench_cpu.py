#!/usr/bin/env python3
"""CI's whole path of `gpuwatch bench`: the real libtorch worker on the CPU,
driven by the real gpuwatch, without a GPU or a driver.

    check_bench_cpu.py GPUWATCH WORKER_DIR
"""
import json
import os
import subprocess
import sys
import tempfile


def main(gpuwatch, worker_dir):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        env = dict(os.environ, GPUWATCH_BENCH_WORKER_DIR=worker_dir,
                   GPUWATCH_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        r = subprocess.run([gpuwatch, "bench", "--device", "cpu", "--suite", "models", "--quick",
                            "--num-batches", "2", "--metrics-interval", "0.05", "-o", out],
                           env=env, capture_output=True, text=True, timeout=600)
        print(r.stdout, r.stderr, sep="\n")
        assert r.returncode == 0, f"exit status {r.returncode}"
        with open(out) as f:
            data = json.load(f)
    summary = data["test_summary"]
    assert summary["total_tests"] == 12 and summary["failed_tests"] == 0, summary
    assert data["system_info"]["device"] == "cpu" and data["system_info"]["pytorch_version"], data["system_info"]
    for t in data["results"]:
        assert t["success"] and t["throughput_samples_per_second"] > 0, t
        assert t["gpu"] is None and t["gpu_utilization_stats"] is None, t
    # The sampler watched the host: the longest tests have CPU samples.
    assert any(t["cpu_utilization_stats"] for t in data["results"]), "no CPU samples in any test"
    print("ok: 12 tests on the CPU through gpuwatch bench")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
