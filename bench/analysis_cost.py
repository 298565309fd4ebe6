#!/usr/bin/env python3
"""Time and peak memory of `report` and `plot` over a long stored run.

DESIGN.md's scale: 8 GPUs at 10 Hz for 35 hours, about 10 million
device-samples. The store is made once by make_run_store (built with the
benchmarks) and reused. Optionally the same summary by pandas over the
exported seed JSON of a shorter run, for a sense of what a Python script costs.

  python3 bench/analysis_cost.py [--hours 35] [--gpus 8] [--repeat 3]
  python3 bench/analysis_cost.py --pandas-hours 1   # also: gpuwatch vs pandas on 1 h

Prints a markdown table; see bench/README.md and docs/performance.md.
"""
import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time


def measure(cmd, env=None, stdout=subprocess.DEVNULL):
    """Wall seconds and peak RSS (MiB) of one child process; exits on its failure."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss / 1024


def best_of(cmd, repeat, env=None):
    runs = [measure(cmd, env) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def make_store(args, path, hours):
    if os.path.exists(path):
        return
    print(f"generating {path} ({args.gpus} GPUs, {hours} h at 10 Hz)...", file=sys.stderr)
    subprocess.run([args.make_store, "--out", path, "--gpus", str(args.gpus), "--hours", str(hours)],
                   check=True, stdout=sys.stderr)


PANDAS_SCRIPT = r"""
import json, sys
import pandas as pd
rows = []
for tick in json.load(open(sys.argv[1])):
    for g in tick["multi_gpu_data"]:
        rows.append(g)
df = pd.DataFrame(rows)
out = df.groupby("gpu_index")[["utilization", "memory_used", "power", "temperature"]].describe(percentiles=[.5, .95])
print(out.to_string())
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="build/gpuwatch")
    p.add_argument("--make-store", default="build/make_run_store")
    p.add_argument("--hours", type=float, default=35)
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--store", default=os.path.join(tempfile.gettempdir(), "gpuwatch-bench-35h.db"))
    p.add_argument("--plot-kinds", default="timeline,per-gpu,balance,histogram")
    p.add_argument("--pandas-hours", type=float, default=0,
                   help="also compare with pandas over the exported multi-GPU JSON of a run this long")
    p.add_argument("--pandas-python", default="/usr/bin/python3",
                   help="a Python with pandas (Debian's python3-pandas is for /usr/bin/python3)")
    args = p.parse_args()

    make_store(args, args.store, args.hours)
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.platform()}", file=sys.stderr)
    rows = []
    wall, rss = best_of([args.bin, "report", "last", "--store", args.store], args.repeat)
    rows.append(("report", wall, rss))
    with tempfile.TemporaryDirectory() as tmp:
        for kind in filter(None, args.plot_kinds.split(",")):
            out = os.path.join(tmp, f"{kind}.png")
            wall, rss = best_of([args.bin, "plot", "last", "--store", args.store, "--kind", kind, "-o", out],
                                args.repeat)
            rows.append((f"plot --kind {kind}", wall, rss))
        if args.pandas_hours > 0:
            small = os.path.join(tmp, "small.db")
            make_store(args, small, args.pandas_hours)
            exported = os.path.join(tmp, "multi.json")
            with open(exported, "w") as f:
                subprocess.run([args.bin, "export", "last", "--store", small, "--format", "multi-json"],
                               check=True, stdout=f)
            label = f"{args.pandas_hours:g} h"
            wall, rss = best_of([args.bin, "report", "last", "--store", small], args.repeat)
            rows.append((f"report, {label}", wall, rss))
            script = os.path.join(tmp, "pandas_summary.py")
            with open(script, "w") as f:
                f.write(PANDAS_SCRIPT)
            wall, rss = best_of([args.pandas_python, script, exported], args.repeat)
            rows.append((f"pandas over exported multi-json, {label} ({os.path.getsize(exported) >> 20} MiB)",
                         wall, rss))

    print(f"| what ({args.gpus} GPUs, {args.hours:g} h at 10 Hz unless said) | wall s (best of {args.repeat}) "
          f"| peak RSS MiB |")
    print("|---|---|---|")
    for name, wall, rss in rows:
        print(f"| {name} | {wall:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
