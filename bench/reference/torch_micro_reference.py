#!/usr/bin/env python3
"""The CUDA worker's two headline numbers measured the way PyTorch users get
them, for the side-by-side check of issue 5 (docs/performance.md):

- bf16 matrix multiply: torch.matmul of two n x n bf16 matrices (n = 8192, or
  4096 with --quick), 2 n^3 flops per product;
- device-to-device copy: Tensor.copy_ of 1 GiB, bytes read plus written.

Timing as the worker does it: 3 warm-up calls, then CUDA events around as
many calls as fill --seconds (default 1). Prints one JSON line per test in
the worker protocol (docs/bench-workers.md), so both can be read alike."""
import argparse
import json
import sys

try:
    import torch
except ImportError:
    sys.exit("needs PyTorch (pip install torch)")


def seconds_per_call(f, target_s):
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    n = 4
    while True:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            f()
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end)
        if ms >= target_s * 1000:
            return ms / 1000 / n, n
        n = int(n * target_s * 1000 / max(ms, 0.01)) + 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--gpu", type=int, default=0)
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("no CUDA device")
    torch.cuda.set_device(a.gpu)
    n = 4096 if a.quick else 8192
    x = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    y = torch.rand_like(x) * 2 - 1
    s, iters = seconds_per_call(lambda: torch.matmul(x, y), a.seconds)
    print(json.dumps({"type": "result", "test_name": f"torch_matmul_bf16_{n}", "test_type": "matmul",
                      "gpu": a.gpu, "precision": "bf16", "tflops": 2 * n ** 3 / s / 1e12, "iterations": iters,
                      "duration_seconds": s * iters, "success": True, "error_message": None}))
    del x, y
    src = torch.empty(2 ** 28, device="cuda")  # 1 GiB of float32
    dst = torch.empty_like(src)
    s, iters = seconds_per_call(lambda: dst.copy_(src), a.seconds)
    print(json.dumps({"type": "result", "test_name": "torch_copy_1gib", "test_type": "memory_bandwidth",
                      "gpu": a.gpu, "gb_per_s": 2 * 2 ** 30 / s / 1e9, "iterations": iters,
                      "duration_seconds": s * iters, "success": True, "error_message": None}))


if __name__ == "__main__":
    main()
