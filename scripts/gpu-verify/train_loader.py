#!/usr/bin/env python3
"""ResNet-18 (bf16 autocast) on one GPU, fed through gpuwatch.loader() by a
real torch DataLoader, for `gpuwatch record --advise` (issue 23, item 4).

--mode starved: one worker whose __getitem__ sleeps --item-sleep-ms (2 ms)
  per image: a batch of 64 takes about 130 ms to make, the GPU's step about
  10 ms, so the loop waits for data most of each step.
--mode fast: whole batches of uint8 images from memory, 6 workers, pinned
  memory: the loop should hardly wait.

An epoch is one pass over the DataLoader (gpuwatch.epoch() before each);
runs --seconds (default 45), logs the loss (the CUDA tensor) and the step
every step. Prints the data wait share it measured itself with
time.perf_counter() around the same next() calls, as a JSON line at the end,
to compare with what gpuwatch stored (check_data_wait.py).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import gpuwatch  # noqa: E402  (needs the path above)
import torch  # noqa: E402
import torchvision  # noqa: E402

BATCH = 64
SIZE = 224
STARVED_BATCHES_PER_EPOCH = 60
FAST_BATCHES_PER_EPOCH = 600


class SlowImages(torch.utils.data.Dataset):
    """One image at a time, each after a sleep: a slow decoder or disk."""

    def __init__(self, length, sleep_s):
        self.length = length
        self.sleep_s = sleep_s
        self.image = torch.randint(0, 256, (3, SIZE, SIZE), dtype=torch.uint8)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        time.sleep(self.sleep_s)
        return self.image.clone(), index % 1000


class MemoryBatches(torch.utils.data.Dataset):
    """Whole batches from memory: as fast as a DataLoader gets."""

    def __init__(self, length):
        self.length = length
        self.images = torch.randint(0, 256, (4, BATCH, 3, SIZE, SIZE), dtype=torch.uint8)
        self.labels = torch.randint(0, 1000, (4, BATCH))

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return self.images[index % 4].clone(), self.labels[index % 4].clone()


def make_loader(mode, item_sleep_s):
    if mode == "starved":
        dataset = SlowImages(STARVED_BATCHES_PER_EPOCH * BATCH, item_sleep_s)
        return torch.utils.data.DataLoader(dataset, batch_size=BATCH, num_workers=1, pin_memory=True)
    return torch.utils.data.DataLoader(MemoryBatches(FAST_BATCHES_PER_EPOCH), batch_size=None, num_workers=6,
                                       pin_memory=True, persistent_workers=True, prefetch_factor=4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["starved", "fast"], required=True)
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--item-sleep-ms", type=float, default=2.0)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("train_loader.py: needs a CUDA GPU")
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(num_classes=1000).to(device, memory_format=torch.channels_last)
    gpuwatch.model(module=model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = make_loader(args.mode, args.item_sleep_ms / 1000)

    waited_s = stepped_s = 0.0
    steps = epochs = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        epochs += 1
        gpuwatch.epoch(epochs)
        with gpuwatch.phase("train"):
            batches = iter(gpuwatch.loader(loader))
            while time.perf_counter() - start < args.seconds:
                called = time.perf_counter()
                try:
                    images, labels = next(batches)
                except StopIteration:
                    break
                fetched = time.perf_counter()
                images = images.to(device, non_blocking=True).float().div_(255)
                images = images.contiguous(memory_format=torch.channels_last)
                labels = labels.to(device, non_blocking=True)
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = loss_fn(model(images), labels)
                loss.backward()
                optimizer.step()
                steps += 1
                gpuwatch.step(steps)
                gpuwatch.log(loss=loss)
                waited_s += fetched - called
                stepped_s += time.perf_counter() - called
        print(f"epoch {epochs} step {steps}", flush=True)
    torch.cuda.synchronize()
    print(json.dumps({"schema_version": 1, "mode": args.mode, "steps": steps, "epochs": epochs,
                      "self_measured_wait_share": round(waited_s / stepped_s, 4) if stepped_s else None,
                      "steps_per_s": round(steps / (time.perf_counter() - start), 2)}), flush=True)


if __name__ == "__main__":
    main()
