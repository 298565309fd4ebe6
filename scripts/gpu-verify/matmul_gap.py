#!/usr/bin/env python3
"""A known GPU load for checking gpuwatch on real hardware.

Holds N GiB on the GPU, runs bf16 8192x8192 matmuls for --compute-s seconds,
sleeps --idle-s seconds (GPU idle, memory still held), then computes again.
Prints one JSON line per phase with its wall-clock start and end, so a checker
can compare gpuwatch's samples with what really happened.
"""
import argparse
import json
import time

import torch


def emit(**fields):
    print(json.dumps(fields), flush=True)


def compute(a, b, seconds):
    start = time.time()
    n = 0
    while time.time() - start < seconds:
        for _ in range(20):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        n += 20
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gib", type=float, default=8.0, help="GiB to hold on the GPU for the whole run")
    p.add_argument("--compute-s", type=float, default=10.0)
    p.add_argument("--idle-s", type=float, default=5.0)
    args = p.parse_args()

    t0 = time.time()
    torch.cuda.init()
    held = torch.empty(int(args.gib * 2**30), dtype=torch.uint8, device="cuda")
    held.fill_(1)  # touch it, so it is really resident
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    emit(phase="setup", start=t0, end=time.time(), held_bytes=held.numel(),
         allocated_bytes=torch.cuda.memory_allocated(), reserved_bytes=torch.cuda.memory_reserved(),
         device=torch.cuda.get_device_name())

    s = time.time()
    n = compute(a, b, args.compute_s)
    e = time.time()
    emit(phase="compute1", start=s, end=e, matmuls=n, tflops=2 * 8192**3 * n / (e - s) / 1e12)

    s = time.time()
    time.sleep(args.idle_s)
    emit(phase="idle", start=s, end=time.time())

    s = time.time()
    n = compute(a, b, args.compute_s)
    e = time.time()
    emit(phase="compute2", start=s, end=e, matmuls=n, tflops=2 * 8192**3 * n / (e - s) / 1e12,
         max_allocated_bytes=torch.cuda.max_memory_allocated())


if __name__ == "__main__":
    main()
