#!/usr/bin/env python3
"""A training-shaped GPU load with known answers, for checking report, compare
and plot on real hardware.

Holds --state-gib of "optimizer state" on the GPU (two runs that differ only
here give compare a known memory difference), then runs --steps steps: bf16
matmuls for --compute-s, then --stall-s with the GPU idle (the host "waits
for the next batch"), so the report must find regular idle gaps. With
--drop-at F, a 4 GiB activation cache is freed after that fraction of the
steps: a sudden memory drop. Prints one JSON line per event with wall times.
"""
import argparse
import json
import time

import torch


def emit(**fields):
    print(json.dumps(fields), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--state-gib", type=float, default=8.0)
    p.add_argument("--steps", type=int, default=24)
    p.add_argument("--compute-s", type=float, default=0.7)
    p.add_argument("--stall-s", type=float, default=0.3)
    p.add_argument("--drop-at", type=float, default=None)
    args = p.parse_args()

    dev = torch.device("cuda")
    state = torch.empty(int(args.state_gib * 2**30), dtype=torch.uint8, device=dev)
    cache = torch.empty(4 * 2**30, dtype=torch.uint8, device=dev) if args.drop_at is not None else None
    a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    b = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    torch.cuda.synchronize()
    emit(event="start", t=time.time(), state_gib=args.state_gib, allocated=torch.cuda.memory_allocated())
    for step in range(args.steps):
        if cache is not None and step == int(args.drop_at * args.steps):
            del cache
            cache = None
            torch.cuda.empty_cache()
            emit(event="drop", t=time.time())
        begin = time.time()
        while time.time() - begin < args.compute_s:
            for _ in range(10):
                torch.matmul(a, b)
            torch.cuda.synchronize()
        stall = time.time()
        time.sleep(args.stall_s)
        emit(event="step", step=step, compute_start=begin, stall_start=stall, end=time.time())
    emit(event="end", t=time.time(), held=int(state.numel()))


if __name__ == "__main__":
    main()
