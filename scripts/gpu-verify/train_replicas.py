#!/usr/bin/env python3
"""A real PyTorch training on every visible GPU at once, for a matrix whose
cells hold several GPUs: one MLP replica per GPU, each stepped in turn (the
kernels are asynchronous, so the GPUs run side by side; there is no gradient
exchange, which a load generator does not need). Optimizer and per-GPU batch
size are flags. Prints "epoch E step S loss L" lines for record's
--annotate-regex and, with --metrics-every N, gpuwatch.metrics() (seed 001's
names) every N steps, as a W&B or trackio log call would receive them."""
import argparse
import json
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--optimizer", choices=["adamw", "sgd"], required=True)
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--steps-per-epoch", type=int, default=100)
    p.add_argument("--metrics-every", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(0)
    replicas = []
    for i in range(torch.cuda.device_count()):
        dev = torch.device(f"cuda:{i}")
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096),
                                    torch.nn.GELU(), torch.nn.Linear(4096, 10)).to(dev)
        opt = (torch.optim.AdamW(model.parameters(), lr=1e-3) if args.optimizer == "adamw"
               else torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9))
        x = torch.randn(args.batch_size * 8, 1024, device=dev)
        y = torch.randint(0, 10, (args.batch_size * 8,), device=dev)
        replicas.append((model, opt, x, y))
    if args.metrics_every:
        import gpuwatch
    end = time.time() + args.seconds
    step = 0
    while time.time() < end:
        i = (step % 8) * args.batch_size
        losses = []
        for model, opt, x, y in replicas:
            loss = torch.nn.functional.cross_entropy(model(x[i:i + args.batch_size]), y[i:i + args.batch_size])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss)
        step += 1
        if step % 10 == 0:
            loss = sum(l.item() for l in losses) / len(losses)
            print(f"epoch {1 + step // args.steps_per_epoch} step {step} loss {loss:.4f}", flush=True)
        if args.metrics_every and step % args.metrics_every == 0:
            t = time.perf_counter()
            m = gpuwatch.metrics()
            print(f"metrics() {1e3 * (time.perf_counter() - t):.2f} ms {json.dumps(m, sort_keys=True)}", flush=True)


if __name__ == "__main__":
    main()
