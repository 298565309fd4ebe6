#!/usr/bin/env python3
"""A small real PyTorch training (an MLP classifier on synthetic data) whose
optimizer and batch size are flags, for a matrix on a real GPU. Prints
"epoch E step S loss L" lines that record's --annotate-regex reads."""
import argparse
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--optimizer", choices=["adamw", "sgd"], required=True)
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--steps-per-epoch", type=int, default=50)
    args = p.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096),
                                torch.nn.GELU(), torch.nn.Linear(4096, 10)).to(dev)
    opt = (torch.optim.AdamW(model.parameters(), lr=1e-3) if args.optimizer == "adamw"
           else torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9))
    x = torch.randn(args.batch_size * 8, 1024, device=dev)
    y = torch.randint(0, 10, (args.batch_size * 8,), device=dev)
    end = time.time() + args.seconds
    step = 0
    while time.time() < end:
        i = (step % 8) * args.batch_size
        loss = torch.nn.functional.cross_entropy(model(x[i:i + args.batch_size]), y[i:i + args.batch_size])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"epoch {1 + step // args.steps_per_epoch} step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
