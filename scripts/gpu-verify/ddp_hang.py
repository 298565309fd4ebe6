#!/usr/bin/env python3
"""Issue 23, item 3: a DDP-style hang by mismatched collectives on 2 GPUs.

Two ranks (one process per GPU, NCCL) run steps of 4096^2 bf16 matmuls and an
all-reduce of 64 MiB each. Rank 1 stops one step early and sleeps (alive,
its GPU idle, its memory held), so rank 0 waits in its last all-reduce for
ever: the hang seen by accident in issue 23. Rank 0 prints "step N" after
each step (for --annotate-regex) and "hang begins" with the time when it
enters the all-reduce that never completes. NCCL's own watchdog is set to
30 minutes so that gpuwatch, not PyTorch, is what notices.
"""
import argparse
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, world, steps, step_s):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, timeout=datetime.timedelta(minutes=30))
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    grad = torch.ones(16 * 1024 * 1024, device="cuda")
    my_steps = steps - 1 if rank == 1 else steps
    for step in range(1, my_steps + 1):
        end = time.monotonic() + step_s
        while time.monotonic() < end:
            a = (a @ a).clamp_(-1, 1)
        if rank == 0 and step == steps:
            print(f"hang begins at {time.time():.1f}", flush=True)
        dist.all_reduce(grad)
        torch.cuda.synchronize()
        if rank == 0:
            print(f"step {step}", flush=True)
    if rank == 1:
        print(f"rank 1 stopped one step early at {time.time():.1f}", flush=True)
        time.sleep(3600)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--step-seconds", type=float, default=0.5)
    args = p.parse_args()
    mp.spawn(rank_main, args=(2, args.steps, args.step_seconds), nprocs=2)


if __name__ == "__main__":
    main()
