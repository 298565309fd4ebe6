#!/usr/bin/env python3
"""Time to first byte, throughput and peak RSS of `gpuwatch export` (issue 25).

    bench/export_stream.py --bin build/gpuwatch --store /work/big/s10.db --run a \
        [--format jsonl csv json multi-json tensorboard] [--limit-s 600]

Runs `/usr/bin/time -f "%e %U %S %M" gpuwatch export RUN --format F` per format,
reads its stdout as it comes (tensorboard writes to a scratch folder: its size
is counted instead), and prints one JSON line per format: seconds to the first
byte, bytes, wall and CPU seconds, MB/s (bytes / wall seconds, 10^6 bytes),
peak RSS in KiB, and the load average when it started. With --limit-s the
export is stopped after that many seconds and the numbers so far are printed
(marked "stopped").
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time


def read_stream(proc, start, limit_s=None):
    """(seconds to the first byte or None, bytes, stopped) of a child's stdout read to its end,
    or until limit_s seconds after `start` (monotonic), when it is terminated."""
    first = None
    total = 0
    while True:
        block = proc.stdout.read1(1 << 20)
        if not block:
            return first, total, False
        if first is None:
            first = time.monotonic() - start
        total += len(block)
        if limit_s and time.monotonic() - start > limit_s:
            proc.terminate()
            return first, total, True


def run_one(binary, store, run, fmt, limit_s):
    scratch = tempfile.mkdtemp(prefix="export-stream-")
    timing = os.path.join(scratch, "time")
    cmd = ["/usr/bin/time", "-o", timing, "-f", "%e %U %S %M", binary, "export", run, "--store", store,
           "--format", fmt]
    if fmt == "tensorboard":
        cmd += ["-o", os.path.join(scratch, "tb")]
    load = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    first, total, stopped = read_stream(proc, start, limit_s)
    proc.wait()
    wall = time.monotonic() - start
    out = {"schema_version": 1, "format": fmt, "first_byte_s": round(first, 3) if first is not None else None,
           "wall_s": round(wall, 2), "load_avg_1min": round(load, 2)}
    if fmt == "tensorboard":
        tb = os.path.join(scratch, "tb")
        total = sum(os.path.getsize(os.path.join(tb, f)) for f in os.listdir(tb)) if os.path.isdir(tb) else 0
    out["bytes"] = total
    out["mb_per_s"] = round(total / 1e6 / wall, 1) if wall > 0 else None
    if os.path.exists(timing) and not stopped:
        fields = open(timing).read().split()[-4:]
        out.update({"user_s": float(fields[1]), "sys_s": float(fields[2]), "peak_rss_kib": int(fields[3])})
        cpu = out["user_s"] + out["sys_s"]
        out["mb_per_cpu_s"] = round(total / 1e6 / cpu, 1) if cpu > 0 else None
    if stopped:
        out["stopped"] = True
    shutil.rmtree(scratch, ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--run", default="last")
    ap.add_argument("--format", nargs="+", default=["jsonl", "csv", "json", "multi-json", "tensorboard"])
    ap.add_argument("--limit-s", type=float, default=0)
    args = ap.parse_args()
    for fmt in args.format:
        print(json.dumps(run_one(args.bin, args.store, args.run, fmt, args.limit_s)), flush=True)


if __name__ == "__main__":
    main()
