#!/usr/bin/env python3
"""Data-parallel training (DDP over NCCL) with one cause of underuse built in
on purpose, for the scenario suite of issue 23 (ddp_scenarios.sh). Start it
with `python3 -m torch.distributed.run --standalone --nproc_per_node N`.

--scenario
  balanced      every rank alike: no rank waits long for another.
  host_slow     the slow rank's host sleeps before each step (a busy CPU):
                its GPU idles, and the others wait for it in the all-reduce.
  data_starved  the slow rank's DataLoader cannot keep up (each item sleeps
                on one worker); the others' loaders keep up.
  uneven        the slow rank gets three times the batch (uneven shards):
                its GPU computes while the others wait for it.
  hang          after --hang-after-s the slow rank stops one step early and
                sleeps (mismatched collectives): the other ranks sit in an
                all-reduce that never completes, until gpuwatch acts on the
                hang or --seconds has passed.

All ranks run the same number of steps (rank 0 decides when to stop, told to
the others in a small all-reduce every 10 steps), so only `hang` hangs.
Prints "hang begins at WALL" (seconds since the epoch) when the hang starts.
"""
import argparse
import datetime
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuwatch  # noqa: E402  (needs the path above)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torchvision  # noqa: E402

BATCH = 64
IMAGE = (3, 224, 224)
CLASSES = 100
HOST_SLEEP_S = 0.15       # host_slow: about twice a ResNet-50 bf16 step of 64 images on an H200
ITEM_SLEEP_S = 0.003      # data_starved: 64 items on one worker, about 0.2 s a batch
UNEVEN_FACTOR = 3
CHECK_EVERY_STEPS = 10


class SleepyImages(torch.utils.data.Dataset):
    """Noise images from the CPU, each item after a sleep (a slow decoder)."""

    def __init__(self, sleep_s):
        self.sleep_s = sleep_s
        self.image = torch.randint(0, 255, IMAGE, dtype=torch.uint8)

    def __len__(self):
        return 1_000_000

    def __getitem__(self, index):
        if self.sleep_s:
            time.sleep(self.sleep_s)
        return self.image, index % CLASSES


def batches(args, rank, device):
    """An endless supply of (images, labels) on the device, as this rank gets them."""
    slow = rank == args.slow_rank
    if args.scenario == "data_starved":
        loader = torch.utils.data.DataLoader(SleepyImages(ITEM_SLEEP_S if slow else 0), batch_size=BATCH,
                                             num_workers=1 if slow else 4, persistent_workers=True)
        while True:
            for images, labels in gpuwatch.loader(loader):
                yield images.to(device, non_blocking=True).float().div_(255), labels.to(device)
    size = BATCH * (UNEVEN_FACTOR if args.scenario == "uneven" and slow else 1)
    images = torch.randn(size, *IMAGE, device=device)
    labels = torch.randint(0, CLASSES, (size,), device=device)
    while True:
        yield images, labels


def keep_going(rank, start, args, device):
    """Rank 0's clock decides for everyone; every rank takes part."""
    flag = torch.tensor([1 if rank == 0 and time.monotonic() - start < args.seconds else 0], device=device)
    if rank != 0:
        flag.fill_(1)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def hang_now(rank, start, args, device):
    """Whether the hang starts at this check, decided by rank 0 for all."""
    flag = torch.tensor([1 if rank == 0 and time.monotonic() - start >= args.hang_after_s else 0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=["balanced", "host_slow", "data_starved", "uneven", "hang"], required=True)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--slow-rank", type=int, default=1)
    p.add_argument("--hang-after-s", type=float, default=30.0)
    args = p.parse_args()
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    # Longer than any scenario: NCCL's own watchdog must not end the hang first.
    dist.init_process_group("nccl", timeout=datetime.timedelta(minutes=30))
    model = torchvision.models.resnet50(num_classes=CLASSES).to(device, memory_format=torch.channels_last)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    supply = batches(args, rank, device)
    start = time.monotonic()
    step = 0
    while True:
        if step % CHECK_EVERY_STEPS == 0:
            if not keep_going(rank, start, args, device):
                break
            if args.scenario == "hang" and hang_now(rank, start, args, device) and rank == args.slow_rank:
                print(f"hang begins at {time.time():.3f}: rank {rank} stops one step early", flush=True)
                gpuwatch.mark(f"hang begins: rank {rank} stops")
                time.sleep(args.seconds)  # alive, its GPU idle, never joining the all-reduce
                break
        images, labels = next(supply)
        if args.scenario == "host_slow" and rank == args.slow_rank:
            time.sleep(HOST_SLEEP_S)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(images.contiguous(memory_format=torch.channels_last)),
                                                     labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        step += 1
        if rank == 0:
            gpuwatch.step(step)
            if step % 50 == 0:
                print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
