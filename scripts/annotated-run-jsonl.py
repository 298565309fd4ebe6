#!/usr/bin/env python3
"""Writes a made-up annotated training run as gpuwatch's JSONL export, for `gpuwatch import`: the
pictures of docs/plot.md (docs/img/plot-timeline-training.png, plot-compare-loss.png) are drawn from two
of them. 4 GPUs at 2 Hz, six epochs of a train and a val phase, loss and lr every second, val_loss
at each validation's end, a checkpoint mark after it, and the recorder's own job_gpus event.

    scripts/annotated-run-jsonl.py --steps-per-s 5 > a.jsonl
    scripts/annotated-run-jsonl.py --steps-per-s 3.5 --seed 2 > b.jsonl
    gpuwatch import a.jsonl && gpuwatch import b.jsonl
    gpuwatch plot <a> -o docs/img/plot-timeline-training.png
    gpuwatch plot <a> <b> --align step --metric gpu_util_percent -o docs/img/plot-compare-loss.png
"""
import argparse
import json
import math
import random

GIB = 1024 ** 3
EPOCH_S = 100
TRAIN_S = 80


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps-per-s", type=float, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=6)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start_ns = 1_795_672_547_000_000_000 + args.seed * 86_400 * 10**9
    out = []

    def line(t_s, **fields):
        wall = start_ns + int(t_s * 1e9)
        out.append((wall, dict(fields, wall_ns=wall, elapsed_s=t_s)))

    def event(t_s, kind, message):
        line(t_s, type="event", kind=kind, message=message, gpu=None)

    duration = args.epochs * EPOCH_S
    for i in range(duration * 2 + 1):
        t = i / 2
        in_val = (t % EPOCH_S) >= TRAIN_S
        for g in range(4):
            util = (45 if in_val else 92 - 6 * g) + rng.uniform(-1.5, 1.5)
            line(t, type="device", gpu_index=g, gpu_name="NVIDIA H100 80GB HBM3", gpu_util_percent=util,
                 mem_used_bytes=min(t / 30, 1) * (52 + 3 * g) * GIB, mem_total_bytes=80 * GIB,
                 power_watts=110 + 5.6 * util, power_limit_watts=700, temp_gpu_celsius=35 + 0.35 * util,
                 sm_clock_mhz=1980 - 2 * util, sm_clock_max_mhz=1980)
    event(0.5, "job_gpus", "source=process_tree gpus=0,1,2,3")
    step = 0
    for epoch in range(1, args.epochs + 1):
        e0 = (epoch - 1) * EPOCH_S
        if epoch > 1:
            event(e0, "phase", "")
            event(e0 + 0.001, "epoch", "")
        event(e0 + 0.002, "epoch", str(epoch))
        event(e0 + 0.003, "phase", "train")
        for s in range(1, TRAIN_S + 1):
            step += args.steps_per_s
            loss = 0.35 + 2.0 * math.exp(-step / 900) + rng.uniform(-0.04, 0.04)
            lr = 3e-4 * 0.5 * (1 + math.cos(math.pi * step / (args.steps_per_s * TRAIN_S * args.epochs)))
            event(e0 + s, "step", str(int(step)))
            event(e0 + s + 0.01, "log", "loss=%.5f lr=%.7f" % (loss, lr))
        event(e0 + TRAIN_S + 0.004, "phase", "val")
        val = 0.45 + 2.0 * math.exp(-step / 1000) + rng.uniform(-0.02, 0.02)
        event(e0 + EPOCH_S - 2, "log", "val_loss=%.5f" % val)
        event(e0 + EPOCH_S - 1, "mark", "checkpoint saved")
    out.sort(key=lambda x: x[0])
    for _, fields in out:
        print(json.dumps(fields))


if __name__ == "__main__":
    main()
