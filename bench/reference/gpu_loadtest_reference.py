#!/usr/bin/env python3
"""Seed 003's GPU load test in Python PyTorch eager: the reference that
gpuwatch-bench-torch (bench/workers/torch) is measured against.

The same suite as the worker, built the same way so that the two numbers
compare like for like:
  - models: a simple CNN (three 3x3 conv layers of 32/64/128 channels, each with
    ReLU and 2x2 max pooling, then 2048 -> 256 -> 10) on 3x32x32 images, batch
    16/32/64; a ResNet-18-like network (torchvision's resnet18 layout: 7x7 stem,
    max pool, BasicBlocks [2,2,2,2] with batch norm, average pool, 10 classes)
    on 3xSxS images, S = 224 on cuda and 64 on cpu, batch 8/16/32;
  - training: cross entropy, SGD lr 0.01 momentum 0.9 (PyTorch's default
    multi-tensor implementation on CUDA), gradients set to None between steps;
    inference: eval mode under torch.no_grad();
  - data: synthetic batches (normal(0,1) images, uniform labels) made on the host
    by a DataLoader with --num-workers worker processes (0: the main process),
    pinned on CUDA and copied with non_blocking=True;
  - timing: warm-up iterations first (not timed), the device synchronized
    before the clock is read at the start and at the end; iterations =
    num_epochs x num_batches, one continuous stream of batches.

Unlike the original gpu_loadtest.py it synchronizes the device before timing
and leaves the warm-up out, so its throughput is what the GPU did. Resource
monitoring is left to gpuwatch (`gpuwatch record -- python3 ...`).

Output: the seed's JSON (system_info, test_summary, results[]) in --output;
with --jsonl also the worker protocol's JSON lines on stdout
(docs/bench-workers.md). Progress goes to stderr.
"""
import argparse
import contextlib
import datetime
import gc
import json
import logging
import os
import platform
import socket
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

NUM_CLASSES = 10
LEARNING_RATE = 0.01
MOMENTUM = 0.9
DATA_SEED = 3  # seed 003

# (num_epochs, num_batches, warmup, resnet_image_size) by (device, quick), as
# in the worker's options.cpp.
DEFAULTS = {
    ("cuda", False): (3, 200, 5, 224),
    ("cuda", True): (1, 20, 5, 224),
    ("cpu", False): (3, 200, 2, 64),
    ("cpu", True): (1, 5, 2, 64),
}

# Seed 003's tests and its words for each, in the worker's order.
SUITE = [
    ("training", "simple_cnn", 16,
     "Small batch CNN training - Tests GPU efficiency with limited parallelism and memory usage"),
    ("training", "simple_cnn", 32, "Medium batch CNN training - Balanced test of GPU compute and memory bandwidth"),
    ("training", "simple_cnn", 64, "Large batch CNN training - Tests GPU memory capacity and high-throughput compute"),
    ("training", "resnet18", 8,
     "Small batch ResNet training - Tests GPU with complex operations and moderate memory usage"),
    ("training", "resnet18", 16, "Medium batch ResNet training - Balanced complex compute with memory efficiency"),
    ("training", "resnet18", 32, "Large batch ResNet training - Stress test for GPU memory and complex operations"),
    ("inference", "simple_cnn", 16, "Small batch CNN inference - Tests low-latency inference scenarios"),
    ("inference", "simple_cnn", 32, "Medium batch CNN inference - Balanced inference throughput testing"),
    ("inference", "simple_cnn", 64, "Large batch CNN inference - High-throughput inference performance test"),
    ("inference", "resnet18", 8, "Small batch ResNet inference - Complex model low-latency inference test"),
    ("inference", "resnet18", 16, "Medium batch ResNet inference - Balanced complex inference workload"),
    ("inference", "resnet18", 32, "Large batch ResNet inference - High-throughput complex model inference"),
]

log = logging.getLogger("gpu_loadtest_reference")


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc1 = nn.Linear(128 * 4 * 4, 256)
        self.fc2 = nn.Linear(256, NUM_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.max_pool2d(F.relu(self.conv3(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


class BasicBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.down_conv = self.down_bn = None
        if stride != 1 or in_channels != out_channels:
            self.down_conv = nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False)
            self.down_bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        out += self.down_bn(self.down_conv(x)) if self.down_conv is not None else x
        return F.relu(out, inplace=True)


class ResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        blocks = []
        in_channels = 64
        for layer, width in enumerate((64, 128, 256, 512)):
            for block in range(2):
                blocks.append(BasicBlock(in_channels, width, 2 if layer > 0 and block == 0 else 1))
                in_channels = width
        self.blocks = nn.ModuleList(blocks)
        self.fc = nn.Linear(512, NUM_CLASSES)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)), inplace=True)
        x = F.max_pool2d(x, 3, 2, 1)
        for block in self.blocks:
            x = block(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class SyntheticBatches(IterableDataset):
    """An endless stream of whole batches; each DataLoader worker runs its own
    copy (with its own random generator, as DataLoader seeds them)."""

    def __init__(self, batch_size, side, channels_last):
        super().__init__()
        self.batch_size, self.side, self.channels_last = batch_size, side, channels_last

    def __iter__(self):
        n, side = self.batch_size, self.side
        while True:
            # normal_ fills contiguous memory fastest: a channels-last batch is
            # made as contiguous NHWC and viewed as NCHW, as the worker does.
            if self.channels_last:
                images = torch.empty(n, side, side, 3).normal_().permute(0, 3, 1, 2)
            else:
                images = torch.empty(n, 3, side, side).normal_()
            yield images, torch.randint(NUM_CLASSES, (n,))


def image_side(model_name, config):
    return 32 if model_name == "simple_cnn" else config.resnet_image_size


def test_name(workload, model_name, batch_size):
    return f"{'train' if workload == 'training' else 'infer'}_{model_name}_bs{batch_size}"


def describe(workload, model_name, batch_size, summary, config):
    side = image_side(model_name, config)
    text = f"{summary}; {'simple CNN' if model_name == 'simple_cnn' else 'ResNet-18'}"
    text += f" on synthetic 3x{side}x{side} images, batch {batch_size}"
    text += ", cross entropy and SGD with momentum 0.9" if workload == "training" else ", eval mode without gradients"
    text += f", {config.amp_dtype} autocast" if config.amp else ", fp32"
    if config.channels_last:
        text += ", channels-last"
    return text + "."


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def autocast(config):
    if not config.amp:
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=torch.bfloat16 if config.amp_dtype == "bf16" else torch.float16)


def run_test(workload, model_name, batch_size, config, device, on_timed_start):
    """Returns (duration_seconds, iterations, peak_gpu_memory_mb); raises on failure."""
    if config.amp and device.type != "cuda":
        raise RuntimeError("--amp needs CUDA: autocast runs on CUDA devices only")
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)
    model = SimpleCNN() if model_name == "simple_cnn" else ResNet18()
    model.to(device)
    if config.channels_last:
        model.to(memory_format=torch.channels_last)
    training = workload == "training"
    model.train(training)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM) if training else None
    loader = DataLoader(SyntheticBatches(batch_size, image_side(model_name, config), config.channels_last),
                        batch_size=None, num_workers=config.num_workers, pin_memory=cuda)
    batches = iter(loader)

    def step():
        images, labels = next(batches)
        images = images.to(device, non_blocking=True)
        if not training:
            with torch.no_grad(), autocast(config):
                model(images)
            return
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with autocast(config):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    try:
        for _ in range(config.warmup):
            step()
        synchronize(device)
        on_timed_start()
        iterations = config.num_epochs * config.num_batches
        start = time.perf_counter()
        for _ in range(iterations):
            step()
        synchronize(device)
        duration = time.perf_counter() - start
        peak = torch.cuda.max_memory_allocated(device) / (1024 * 1024) if cuda else None
        return duration, iterations, peak
    finally:
        del batches  # stops the worker processes
        del loader, model, optimizer
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()


def system_info(device):
    cuda = torch.cuda.is_available()
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python_version": platform.python_version(),
        "pytorch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cudnn_version": torch.backends.cudnn.version() if cuda else None,
        "gpu_names": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else [],
        "cpu_count": os.cpu_count(),
        "cpu_threads": torch.get_num_threads(),
        "device": str(device),
        "timestamp": datetime.datetime.now().isoformat(timespec="seconds"),
    }


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", "-o", help="results file (default: gpu_loadtest_reference_<time>.json)")
    parser.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda when available")
    parser.add_argument("--gpu", type=int, default=0, help="CUDA device index (default 0)")
    parser.add_argument("--num-epochs", type=int, help="timed iterations = epochs x batches (default 3)")
    parser.add_argument("--num-batches", type=int, help="batches per epoch (default 200)")
    parser.add_argument("--warmup", type=int, help="untimed iterations before each test (default 5; cpu 2)")
    parser.add_argument("--num-workers", type=int, default=0, help="DataLoader worker processes (default 0)")
    parser.add_argument("--quick", action="store_true", help="1 epoch of 20 batches (cpu: 5 batches, 2 warm-up)")
    parser.add_argument("--amp", action="store_true", help="autocast on CUDA (see --amp-dtype)")
    parser.add_argument("--amp-dtype", choices=("bf16", "fp16"), default="bf16",
                        help="autocast type (default bf16; no loss scaling either way, as in the worker)")
    parser.add_argument("--channels-last", action="store_true", help="model and inputs in channels-last format")
    parser.add_argument("--resnet-image-size", type=int, help="ResNet input side (default 224 on cuda, 64 on cpu)")
    parser.add_argument("--tests", default="", help="comma-separated test-name prefixes")
    parser.add_argument("--jsonl", action="store_true", help="also write the worker protocol's lines on stdout")
    parser.add_argument("--log-file", help="also log to this file")
    config = parser.parse_args(argv)
    for name in ("num_epochs", "num_batches"):
        if getattr(config, name) is not None and getattr(config, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if min(config.num_workers, config.gpu, config.warmup or 0) < 0:
        parser.error("--num-workers, --gpu and --warmup must not be negative")
    return config


def emit(config, line):
    if config.jsonl:
        print(json.dumps(line), flush=True)


def main(argv=None):
    config = parse_args(argv)
    handlers = [logging.StreamHandler(sys.stderr)]
    if config.log_file:
        handlers.append(logging.FileHandler(config.log_file))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers)

    device_type = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device_type == "cuda" and not torch.cuda.is_available():
        message = "no CUDA device (try --device cpu)"
        emit(config, {"type": "error", "message": message})
        log.error("%s", message)
        return 1
    if device_type == "cuda" and config.gpu >= torch.cuda.device_count():
        message = f"no GPU {config.gpu}: torch sees {torch.cuda.device_count()}"
        emit(config, {"type": "error", "message": message})
        log.error("%s", message)
        return 1
    device = torch.device("cuda", config.gpu) if device_type == "cuda" else torch.device("cpu")
    epochs, batches, warmup, side = DEFAULTS[(device_type, config.quick)]
    config.num_epochs = config.num_epochs or epochs
    config.num_batches = config.num_batches or batches
    config.warmup = warmup if config.warmup is None else config.warmup
    config.resnet_image_size = config.resnet_image_size or side
    prefixes = [p for p in config.tests.split(",") if p]
    tests = [t for t in SUITE if not prefixes or any(test_name(*t[:3]).startswith(p) for p in prefixes)]
    if not tests:
        log.error("no test name starts with any of --tests")
        return 2

    torch.manual_seed(DATA_SEED)
    info = system_info(device)
    gpu = config.gpu if device_type == "cuda" else None
    emit(config, {"type": "info", "worker": "torch-python-reference", "version": torch.__version__,
                  "cuda_version": info["cuda_version"], "torch_version": torch.__version__,
                  "device": device_type, "devices": [{"index": i, "name": n} for i, n in enumerate(info["gpu_names"])]})
    began = time.perf_counter()
    results = []
    for number, (workload, model_name, batch_size, summary) in enumerate(tests, 1):
        name = test_name(workload, model_name, batch_size)
        result = {
            "test_name": name, "test_type": workload,
            "description": describe(workload, model_name, batch_size, summary, config),
            "model_name": model_name, "batch_size": batch_size, "gpu": gpu,
            "duration_seconds": None, "iterations": None, "throughput_samples_per_second": None,
            "avg_iteration_time_ms": None, "tflops": None, "gb_per_s": None, "latency_us": None,
            "peak_gpu_memory_mb": None, "precision": config.amp_dtype if config.amp else "fp32",
            "amp": config.amp, "channels_last": config.channels_last, "success": True, "error_message": None,
        }
        try:
            duration, iterations, peak = run_test(
                workload, model_name, batch_size, config, device,
                lambda: emit(config, {"type": "start", "test_name": name, "gpu": gpu}))
            result.update(duration_seconds=duration, iterations=iterations,
                          throughput_samples_per_second=iterations * batch_size / duration,
                          avg_iteration_time_ms=duration * 1000 / iterations, peak_gpu_memory_mb=peak)
            log.info("[%d/%d] %s: %.1f samples/s", number, len(tests), name,
                     result["throughput_samples_per_second"])
        except Exception as error:  # a failing test is a result, as in the worker
            result.update(success=False, error_message=str(error))
            log.info("[%d/%d] %s: FAILED: %s", number, len(tests), name, str(error).splitlines()[0])
        results.append(result)
        emit(config, {"type": "result", **result})

    succeeded = sum(r["success"] for r in results)
    document = {
        "system_info": info,
        "test_summary": {
            "requested_duration_minutes": None,  # the seed's field; this suite is sized by iterations
            "actual_duration_seconds": time.perf_counter() - began,
            "total_tests": len(results), "successful_tests": succeeded, "failed_tests": len(results) - succeeded,
            "num_epochs": config.num_epochs, "num_batches": config.num_batches, "warmup_iterations": config.warmup,
            "num_workers": config.num_workers, "amp": config.amp, "channels_last": config.channels_last,
            "resnet_image_size": config.resnet_image_size,
        },
        "results": results,
    }
    output = config.output or datetime.datetime.now().strftime("gpu_loadtest_reference_%Y%m%d_%H%M%S.json")
    with open(output, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=2)
    log.info("%d of %d tests succeeded; results in %s", succeeded, len(results), output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
