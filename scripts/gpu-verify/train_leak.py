#!/usr/bin/env python3
"""A training loop that leaks device memory, for `gpuwatch record --advise`.

Trains a small CNN on synthetic batches and, every --leak-every-s (0.5 s),
keeps a clone of a --leak-mib (32 MiB) tensor in a list that is never
emptied: the kind of bug where a loop keeps its losses or activations. Device
memory grows steadily (about 3.75 GiB in 60 s with the defaults); the
advisor must flag it. Runs --seconds, with an epoch every 5 s, printing
"epoch N step S loss L kept K MiB".
"""
import argparse
import time

import trainlib
from trainlib import torch

EPOCH_SECONDS = 5.0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=trainlib.positive_float, default=60.0)
    p.add_argument("--leak-mib", type=trainlib.positive_int, default=32)
    p.add_argument("--leak-every-s", type=trainlib.positive_float, default=0.5)
    p.add_argument("--batch-size", type=trainlib.positive_int, default=32)
    p.add_argument("--channels", type=trainlib.positive_int, default=32)
    args = p.parse_args()

    device = trainlib.pick_device()
    print(f"device {device} leaking {args.leak_mib} MiB every {args.leak_every_s:g} s for {args.seconds:g} s",
          flush=True)
    trainer = trainlib.Trainer(trainlib.make_cnn(args.channels), device)
    labels = torch.randint(0, trainlib.CLASSES, (args.batch_size,), device=device)
    images = trainlib.synthetic_images(labels, device=device)
    leak_source = torch.randn(args.leak_mib * 2**20 // 4, device=device)  # float32
    kept = []
    last_leak = [time.monotonic()]

    def train_step(step):
        loss = trainer.step(images, labels)
        now = time.monotonic()
        if now - last_leak[0] >= args.leak_every_s:
            kept.append(leak_source.clone())
            last_leak[0] = now
        return loss

    trainlib.train_for(args.seconds, EPOCH_SECONDS, train_step,
                       end_of_epoch=lambda: f" kept {len(kept) * args.leak_mib} MiB")


if __name__ == "__main__":
    main()
