#!/usr/bin/env python3
"""A small CNN on synthetic 3x64x64 images, for `gpuwatch record --advise`.

--mode starved: the DataLoader runs in the main process (num_workers=0) and
  every item sleeps 4 ms in __getitem__, so the GPU idles between batches,
  batch after batch: the advisor must call this input-bound.
--mode fast: batches are made on the device up front and reused, and the
  model is wide enough (128 channels, batch 256 on a GPU) to keep an H100
  busy over 80 % of the time: the advisor must not call this input-bound.

Runs --seconds (default 60) then exits 0, with an epoch every 10 s, and
prints "epoch N step S loss L" at the end of each. Without CUDA it runs on
the CPU with a small model and batch, as a smoke test.
"""
import argparse
import time

import trainlib
from trainlib import torch

EPOCH_SECONDS = 10.0
ITEM_SLEEP_S = 0.004
FAST_POOL_BATCHES = 4


class SyntheticImages(torch.utils.data.Dataset):
    """Labelled noise images, made on the CPU one item at a time."""

    def __init__(self, length, sleep_s):
        self.length = length
        self.sleep_s = sleep_s

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.sleep_s:
            time.sleep(self.sleep_s)  # a slow decoder or a slow disk
        label = torch.tensor([index % trainlib.CLASSES])
        return trainlib.synthetic_images(label)[0], label[0]


def starved_batches(batch_size, device):
    loader = torch.utils.data.DataLoader(
        SyntheticImages(length=1_000_000, sleep_s=ITEM_SLEEP_S), batch_size=batch_size, num_workers=0)
    while True:
        for images, labels in loader:
            yield images.to(device), labels.to(device)


def fast_batches(batch_size, device):
    pool = []
    for _ in range(FAST_POOL_BATCHES):
        labels = torch.randint(0, trainlib.CLASSES, (batch_size,), device=device)
        pool.append((trainlib.synthetic_images(labels, device=device), labels))
    while True:
        yield from pool


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["starved", "fast"], required=True)
    p.add_argument("--seconds", type=trainlib.positive_float, default=60.0)
    p.add_argument("--batch-size", type=trainlib.positive_int, default=None,
                   help="default: 64 starved, 256 fast on a GPU; 16 on the CPU")
    p.add_argument("--channels", type=trainlib.positive_int, default=None,
                   help="width of the first conv layers (default: 128 on a GPU, 16 on the CPU)")
    args = p.parse_args()

    device = trainlib.pick_device()
    on_gpu = device.type == "cuda"
    batch_size = args.batch_size or ((64 if args.mode == "starved" else 256) if on_gpu else 16)
    channels = args.channels or (128 if on_gpu else 16)
    print(f"mode {args.mode} device {device} batch {batch_size} channels {channels} seconds {args.seconds:g}",
          flush=True)

    trainer = trainlib.Trainer(trainlib.make_cnn(channels), device)
    make_batches = starved_batches if args.mode == "starved" else fast_batches
    batches = make_batches(batch_size, device)
    trainlib.train_for(args.seconds, EPOCH_SECONDS, lambda step: trainer.step(*next(batches)))


if __name__ == "__main__":
    main()
