#!/usr/bin/env python3
"""What gpuwatch.log costs a training loop on a GPU (issue 9, item 23):
ResNet-18 steps per second with no annotations, with step() alone, with
log(loss=loss) (the tensor, read only when sent) and with
log(loss=loss.item()) (a GPU sync at every step), in interleaved rounds so
that clock and thermal drift hit every mode alike.

    python3 scripts/gpu-verify/log_tensor_cost.py [--seconds 10] [--rounds 3] [--batch 64]

Runs itself under annotation_sink.py when GPUWATCH_SOCKET is unset, so that
messages really go out. Prints one line per round and mode, then a JSON
summary (median steps/s per mode, and each mode's cost against "none").
Expect: step and tensor within noise of none; item a few % below.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import gpuwatch  # noqa: E402  (needs the path above)

MODES = ("none", "step", "tensor", "item")


def resnet18(nn, classes):
    """torchvision's ResNet-18 when installed, else the same layers written here."""
    try:
        import torchvision
        return torchvision.models.resnet18(num_classes=classes)
    except ImportError:
        pass

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else nn.Identity())
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.relu(self.body(x) + self.skip(x))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per mode and round (default 10)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=224, help="image side in pixels (default 224)")
    args = parser.parse_args()

    if not os.environ.get("GPUWATCH_SOCKET"):
        sink_out = os.path.join(tempfile.gettempdir(), "log_tensor_cost.annotations.jsonl")
        os.execv(sys.executable, [sys.executable, os.path.join(HERE, "annotation_sink.py"), sink_out, "--",
                                  sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
    try:
        import torch
        from torch import nn
    except ImportError:
        sys.exit("log_tensor_cost.py: needs PyTorch")
    if not torch.cuda.is_available():
        sys.exit("log_tensor_cost.py: needs a CUDA GPU (the cost is the GPU sync of .item())")
    device = torch.device("cuda")
    model = resnet18(nn, 1000).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    images = torch.randn(args.batch, 3, args.size, args.size, device=device)
    labels = torch.randint(0, 1000, (args.batch,), device=device)

    def train_step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss

    def run(mode, seconds):
        torch.cuda.synchronize()
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            loss = train_step()
            steps += 1
            if mode != "none":
                gpuwatch.step()
            if mode == "tensor":
                gpuwatch.log(loss=loss)
            elif mode == "item":
                gpuwatch.log(loss=loss.item())
        torch.cuda.synchronize()
        return steps / (time.perf_counter() - start)

    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}, batch {args.batch}, "
          f"{args.size}x{args.size}; annotations to {os.environ['GPUWATCH_SOCKET']}", flush=True)
    run("none", 5.0)  # warm-up: cuDNN's choices, the allocator's pools
    rates = {mode: [] for mode in MODES}
    for r in range(args.rounds):
        for mode in MODES:
            rates[mode].append(run(mode, args.seconds))
            print(f"round {r + 1} {mode:6s} {rates[mode][-1]:.2f} steps/s", flush=True)
    base = statistics.median(rates["none"])
    summary = {"schema_version": 1, "device": torch.cuda.get_device_name(), "batch": args.batch,
               "seconds_per_mode": args.seconds, "rounds": args.rounds,
               "median_steps_per_s": {m: round(statistics.median(v), 2) for m, v in rates.items()},
               "cost_percent_vs_none": {m: round(100 * (1 - statistics.median(v) / base), 2)
                                        for m, v in rates.items() if m != "none"}}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
