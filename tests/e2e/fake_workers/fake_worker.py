#!/usr/bin/env python3
"""Stands in for gpuwatch-bench-cuda and gpuwatch-bench-torch in the e2e tests:
speaks the worker protocol (docs/bench-workers.md) with made-up numbers, so that
`gpuwatch bench` can be tested without CUDA or libtorch. The worker kind is the
program's name; FAKE_WORKER_FAIL=name makes that test fail,
FAKE_WORKER_EXIT=N ends the worker with status N after its tests."""
import json
import os
import sys
import time

kind = "cuda" if os.path.basename(sys.argv[0]).endswith("cuda") else "torch"
args = sys.argv[1:]


def arg(name, default=None):
    return args[args.index(name) + 1] if name in args else default


if kind == "cuda":
    gpus = [int(g) for g in arg("--gpus", "0").split(",")]
    tests = [(f"matmul_bf16_4096_gpu{g}", "matmul", g, {"tflops": 700.0 + 10 * g, "precision": "bf16"}) for g in gpus]
    tests += [(f"membw_copy_gpu{g}", "memory_bandwidth", g, {"gb_per_s": 3000.0}) for g in gpus]
    tests += [("launch_latency_gpu0", "launch_latency", 0, {"latency_us": 2.5})]
else:
    gpu = None if arg("--device") == "cpu" else int(arg("--gpu", "0"))
    tests = [(f"train_simple_cnn_bs{b}", "training", gpu, {"throughput_samples_per_second": 100.0 * b,
                                                           "batch_size": b, "model_name": "simple_cnn"})
             for b in (16, 32)]

if "--list" in args:
    for name, *_ in tests:
        print(name)
    sys.exit(0)


def emit(obj):
    print(json.dumps(obj), flush=True)


emit({"type": "info", "worker": kind, "version": "fake", "device": arg("--device", "cuda"),
      "cuda_version": "13.0" if kind == "cuda" else None, "torch_version": "9.9" if kind == "torch" else None,
      "devices": []})
print("not a message", flush=True)
for name, test_type, gpu, fields in tests:
    emit({"type": "start", "test_name": name, "gpu": gpu})
    time.sleep(0.3)
    ok = os.environ.get("FAKE_WORKER_FAIL") != name
    result = {"type": "result", "test_name": name, "test_type": test_type, "gpu": gpu, "duration_seconds": 0.3,
              "iterations": 10, "success": ok, "error_message": None if ok else "CUDA error: out of memory"}
    result.update(fields)
    emit(result)
sys.exit(int(os.environ.get("FAKE_WORKER_EXIT", "0")))
