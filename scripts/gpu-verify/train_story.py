#!/usr/bin/env python3
"""A training run with a story, for issue 26's proof on a real GPU.

A small CNN on synthetic images, annotated through the gpuwatch client the way a user's loop
is: EPOCHS epochs of a train phase (loss, lr, batch size, steps through gpuwatch.loader) and a
val phase (val_loss), a checkpoint mark after each epoch, and a learning rate that decays. The
loss falls on purpose (the labels are learnable: each class has its own mean image), so a
loss chart has a shape to check. --slow-loader makes the input pipeline the bottleneck, for a
second run to compare with a different verdict.
"""
import argparse
import time

import gpuwatch
import trainlib
from trainlib import torch


class ClassImages(torch.utils.data.Dataset):
    """Noise around one mean image per class: a CNN learns it within an epoch or two."""

    def __init__(self, length, sleep_s):
        self.length = length
        self.sleep_s = sleep_s
        generator = torch.Generator().manual_seed(0)
        self.means = torch.randn(trainlib.CLASSES, 3, 64, 64, generator=generator)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.sleep_s:
            time.sleep(self.sleep_s)
        label = index % trainlib.CLASSES
        return self.means[label] + 0.8 * torch.randn(3, 64, 64), label


def run_epoch(model, optimizer, loader, device, epoch, step):
    """Returns the global step count after the epoch."""
    model.train()
    with gpuwatch.phase("train"):
        for images, labels in gpuwatch.loader(loader):
            step += 1
            gpuwatch.step(step)
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            gpuwatch.log(loss=loss, lr=optimizer.param_groups[0]["lr"], batch_size=len(labels))
    model.eval()
    total, count = 0.0, 0
    with gpuwatch.phase("val"), torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            total += torch.nn.functional.cross_entropy(model(images), labels).item() * len(labels)
            count += len(labels)
            if count >= len(loader.dataset) // 4:
                break
    gpuwatch.log(val_loss=total / max(count, 1))
    gpuwatch.mark(f"checkpoint epoch {epoch}")
    print(f"epoch {epoch} val_loss {total / max(count, 1):.4f}", flush=True)
    return step


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=trainlib.positive_int, default=6)
    p.add_argument("--items", type=trainlib.positive_int, default=20000, help="images per epoch")
    p.add_argument("--batch", type=trainlib.positive_int, default=256)
    p.add_argument("--workers", type=int, default=6)
    p.add_argument("--slow-loader", action="store_true", help="2 workers, 2 ms per image")
    args = p.parse_args()
    device = trainlib.pick_device()
    sleep_s = 0.002 if args.slow_loader else 0.0
    workers = 2 if args.slow_loader else args.workers
    data = ClassImages(args.items, sleep_s)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=workers,
                                         pin_memory=device.type == "cuda", persistent_workers=workers > 0)
    model = trainlib.make_cnn(128).to(device)
    gpuwatch.model(module=model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.7)
    step = 0
    for epoch in range(1, args.epochs + 1):
        gpuwatch.epoch(epoch)
        step = run_epoch(model, optimizer, loader, device, epoch, step)
        schedule.step()


if __name__ == "__main__":
    main()
