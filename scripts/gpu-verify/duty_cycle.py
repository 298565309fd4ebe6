#!/usr/bin/env python3
"""bf16 matmuls on one GPU with a duty cycle: busy for duty x 1 s of every
second, for --seconds. Two of these with different duties make a known load
imbalance for gpuwatch's load-balance report."""
import argparse
import time

import torch

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--device", type=int, default=0)
p.add_argument("--duty", type=float, default=1.0)
p.add_argument("--seconds", type=float, default=15)
p.add_argument("--gib", type=float, default=4)
a = p.parse_args()
dev = torch.device("cuda", a.device)
held = torch.ones(int(a.gib * 2**30), dtype=torch.uint8, device=dev)
x = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
end = time.time() + a.seconds
while time.time() < end:
    second = time.time()
    while time.time() - second < a.duty:
        for _ in range(5):
            torch.matmul(x, x)
        torch.cuda.synchronize(dev)
    rest = 1.0 - (time.time() - second)
    if rest > 0:
        time.sleep(rest)
