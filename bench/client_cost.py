#!/usr/bin/env python3
"""What the Python client costs a training loop (issue 23, item 5): ResNet-18
in bf16 on one GPU, fed by a real torch DataLoader over an in-memory
synthetic dataset, run a fixed number of steps in each mode, the modes
alternating round after round:

    bare     for x, y in dl: train(x, y)
    log      ... and gpuwatch.log(loss=loss) every step (the CUDA tensor itself)
    loader   for x, y in gpuwatch.loader(dl): train(x, y)

    python3 bench/client_cost.py [--gpuwatch PATH] [--rounds 3] [--steps 600] [--batch 64]
                                 [--source device|dataloader]

By default the batches are already on the GPU (--source device), so the GPU
sets the pace and what the client adds shows; --source dataloader feeds a
real DataLoader instead, whose run-to-run noise (about 10 % on an H200)
hides a cost under 1 %.

All of it runs under `gpuwatch record` (PATH, or $GPUWATCH_BIN, else
.device/gpuwatch or build/gpuwatch), so the annotation socket is live and
every message really goes out; with --sink, under
scripts/gpu-verify/annotation_sink.py instead (no gpuwatch build needed).
Prints one line per round and mode, then one JSON line: the median steps/s
of each mode and each mode's cost in % against bare. Needs PyTorch,
torchvision and a CUDA GPU; no network (the data is made here).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODES = ("bare", "log", "loader")
DISTINCT_BATCHES = 8  # batches held in memory, served round-robin


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpuwatch", default=os.environ.get("GPUWATCH_BIN"),
                        help="the gpuwatch binary (default: $GPUWATCH_BIN, .device/gpuwatch, build/gpuwatch)")
    parser.add_argument("--sink", action="store_true",
                        help="run under annotation_sink.py instead of gpuwatch record")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each mode (default 3)")
    parser.add_argument("--steps", type=int, default=600, help="steps per run (default 600)")
    parser.add_argument("--warmup-steps", type=int, default=100)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=224, help="image side in pixels (default 224)")
    parser.add_argument("--workers", type=int, default=6, help="DataLoader workers (default 6)")
    parser.add_argument("--source", choices=["device", "dataloader"], default="device",
                        help="device (default): batches already on the GPU, so the GPU sets the pace and the "
                             "client's own cost shows; dataloader: a real DataLoader, whose noise (about 10 %% "
                             "between runs on an H200) hides a cost under 1 %%")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # the measuring process
    parser.add_argument("--result", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def find_gpuwatch(given):
    for candidate in [given, os.path.join(ROOT, ".device", "gpuwatch"), os.path.join(ROOT, "build", "gpuwatch")]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("client_cost.py: no gpuwatch binary: give --gpuwatch PATH or GPUWATCH_BIN (or --sink)")


def drive(args):
    """Runs the measuring process under gpuwatch record (or the sink) and prints the summary."""
    work = tempfile.mkdtemp(prefix="client_cost.")
    result = os.path.join(work, "result.json")
    worker = [sys.executable, os.path.abspath(__file__), "--worker", "--result", result,
              "--rounds", str(args.rounds), "--steps", str(args.steps), "--warmup-steps", str(args.warmup_steps),
              "--batch", str(args.batch), "--size", str(args.size), "--workers", str(args.workers),
              "--source", args.source]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    device_lib = os.path.join(ROOT, ".device", "lib")  # what a binary built elsewhere brings along
    if os.path.isdir(device_lib):
        env["LD_LIBRARY_PATH"] = device_lib + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")
    if args.sink:
        sink = os.path.join(ROOT, "scripts", "gpu-verify", "annotation_sink.py")
        command = [sys.executable, sink, os.path.join(work, "annotations.jsonl"), "--"] + worker
    else:
        env["GPUWATCH_STORE"] = os.path.join(work, "runs.db")
        command = [find_gpuwatch(args.gpuwatch), "record", "--name", "client_cost", "--no-summary", "--"] + worker
    status = subprocess.call(command, env=env)
    if status != 0 or not os.path.exists(result):
        sys.exit(f"client_cost.py: the measuring run failed (exit status {status})")
    with open(result) as f:
        rates = json.load(f)
    info = rates.pop("_info")
    calls_us = rates.pop("_calls_us")
    base = statistics.median(rates["bare"])
    summary = {
        "schema_version": 1, "bench": "client_cost", **info,
        "recorder": "annotation_sink.py" if args.sink else "gpuwatch record",
        "rounds": args.rounds, "steps_per_run": args.steps,
        "steps_per_s": {mode: [round(r, 2) for r in runs] for mode, runs in rates.items()},
        "median_steps_per_s": {mode: round(statistics.median(runs), 2) for mode, runs in rates.items()},
        "cost_percent_vs_bare": {mode: round(100 * (1 - statistics.median(runs) / base), 2)
                                 for mode, runs in rates.items() if mode != "bare"},
        # What each call adds, as a share of a bare step: the precise figure.
        "call_us": calls_us,
        "call_cost_percent_of_step": {mode: round(us * base / 1e4, 3) for mode, us in calls_us.items()},
    }
    print(json.dumps(summary), flush=True)


def make_loader(torch, args):
    """A real DataLoader: workers, pinned memory, whole batches of uint8
    images from memory (what a fast decoding pipeline hands over)."""

    class Batches(torch.utils.data.Dataset):
        def __init__(self):
            generator = torch.Generator().manual_seed(0)
            self.images = torch.randint(0, 256, (DISTINCT_BATCHES, args.batch, 3, args.size, args.size),
                                        dtype=torch.uint8, generator=generator)
            self.labels = torch.randint(0, 1000, (DISTINCT_BATCHES, args.batch), generator=generator)

        def __len__(self):
            return args.steps

        def __getitem__(self, index):
            return self.images[index % DISTINCT_BATCHES].clone(), self.labels[index % DISTINCT_BATCHES].clone()

    return torch.utils.data.DataLoader(Batches(), batch_size=None, shuffle=False, num_workers=args.workers,
                                       pin_memory=True, persistent_workers=True, prefetch_factor=4)


class DeviceBatches:
    """The same few batches, already on the GPU, handed out args.steps times
    a pass: an iterable with no loader cost of its own."""

    def __init__(self, torch, args, device):
        generator = torch.Generator().manual_seed(0)
        self.batches = [(torch.randint(0, 256, (args.batch, 3, args.size, args.size), dtype=torch.uint8,
                                       generator=generator).to(device),
                         torch.randint(0, 1000, (args.batch,), generator=generator).to(device))
                        for _ in range(DISTINCT_BATCHES)]
        self.steps = args.steps

    def __len__(self):
        return self.steps

    def __iter__(self):
        return (self.batches[i % DISTINCT_BATCHES] for i in range(self.steps))


def measure(args):
    import gpuwatch
    import torch
    import torchvision

    if not torch.cuda.is_available():
        sys.exit("client_cost.py: needs a CUDA GPU")
    if not gpuwatch.enabled():
        sys.exit("client_cost.py: GPUWATCH_SOCKET is not set: run without --worker")
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(num_classes=1000).to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    mean = torch.tensor([0.485, 0.456, 0.406], device=device).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device=device).view(1, 3, 1, 1) * 255
    loader = make_loader(torch, args) if args.source == "dataloader" else DeviceBatches(torch, args, device)

    def train(images, labels):
        images = images.to(device, non_blocking=True).float().sub_(mean).div_(std)
        images = images.contiguous(memory_format=torch.channels_last)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss

    def run(mode, steps):
        batches = gpuwatch.loader(loader) if mode == "loader" else loader
        torch.cuda.synchronize()
        start = time.perf_counter()
        done = 0
        for images, labels in batches:
            loss = train(images, labels)
            if mode == "log":
                gpuwatch.log(loss=loss)
            done += 1
            if done == steps:
                break
        torch.cuda.synchronize()
        return done / (time.perf_counter() - start)

    print(f"torch {torch.__version__}, torchvision {torchvision.__version__} on {torch.cuda.get_device_name()}; "
          f"batch {args.batch}, {args.size}x{args.size}, bf16 autocast, channels_last, "
          f"source {args.source}" + (f", {args.workers} workers" if args.source == "dataloader" else ""),
          flush=True)
    run("bare", args.warmup_steps)  # cuDNN's choices, the allocator's pools, the workers' start
    rates = {mode: [] for mode in MODES}
    for round_index in range(args.rounds):
        for mode in MODES:
            rates[mode].append(run(mode, args.steps))
            gpuwatch.mark(f"client_cost round {round_index + 1} {mode} done")
            print(f"round {round_index + 1} {mode:6s} {rates[mode][-1]:.2f} steps/s", flush=True)
    rates["_calls_us"] = call_costs(torch, gpuwatch, device)
    rates["_info"] = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "batch": args.batch,
                      "size": args.size, "workers": args.workers, "source": args.source}
    with open(args.result, "w") as f:
        json.dump(rates, f)


CALLS = 20000


def call_costs(torch, gpuwatch, device):
    """Microseconds the client adds per call, each loop against the same loop
    without it, best of three: log(loss=a fresh GPU tensor), and one step of
    gpuwatch.loader() over a plain range. Run-to-run noise of whole training
    runs is several %; this is what a step pays, to be set against its length."""

    def best_us(body):
        times = []
        for _ in range(3):
            torch.cuda.synchronize()
            start = time.perf_counter()
            body()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        return 1e6 * min(times) / CALLS

    seed = torch.zeros((), device=device)

    def gpu_ops():
        for _ in range(CALLS):
            seed.add(1.0)

    def gpu_ops_logged():
        for _ in range(CALLS):
            gpuwatch.log(loss=seed.add(1.0))

    def plain_steps():
        for _ in range(CALLS):
            pass

    def wrapped_steps():
        for _ in gpuwatch.loader(range(CALLS)):
            pass

    return {"log": round(best_us(gpu_ops_logged) - best_us(gpu_ops), 3),
            "loader": round(best_us(wrapped_steps) - best_us(plain_steps), 3)}


def main():
    args = parse_args(sys.argv[1:])
    if args.worker:
        measure(args)
    else:
        drive(args)


if __name__ == "__main__":
    main()
