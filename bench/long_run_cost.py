#!/usr/bin/env python3
"""Every row of issue 25's table, timed over one store of long runs.

The store holds two runs of the same length (made by build/make_run_store: 8 GPUs at 10 Hz;
--make HOURS makes it, 35 h = 10 M device-samples, 350 h = 100 M, kept for later calls). Each
row is one process measured from outside: wall seconds and peak RSS (os.wait4's ru_maxrss);
export also its time to the first byte on stdout and its throughput; serve its answer times
and its resident size before and after (VmRSS from /proc). Rows:

  finish     make_run_store itself (only with --make): the recorder's whole run and finish
  store      bytes per device-sample of the file, and its share of free pages (sqlite3)
  report     report, text and JSON, of run A
  status     status of run A (its last minute)
  compare    compare A B
  plot       each kind of plot (compare: A B), PNG
  export     each format to stdout (tensorboard: to a folder)
  import     import of A's jsonl export (needs room for that file: --import-dir)
  serve      the run page's requests (the run, four series at 1200 points, then the report),
             /api/compare of A and B, and serve's RSS after them

Targets are the issue's; a row says whether it met its target. Python 3 standard library.
"""
import argparse
import json
import os
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analysis_cost import measure as measured  # noqa: E402
from export_stream import read_stream  # noqa: E402
from sampler_cost import machine_meta, write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024 * 1024
ROWS = ("finish", "store", "report", "status", "compare", "plot", "export", "import", "serve")
PLOT_KINDS = ("timeline", "per-gpu", "balance", "histogram", "compare")
EXPORT_FORMATS = ("jsonl", "csv", "json", "multi-json", "tensorboard")
SERIES = ("gpu_util_percent", "mem_used_bytes", "power_watts", "temp_gpu_celsius")


def streamed(cmd):
    """(first byte s, wall s, bytes, peak RSS MiB) of a command writing to stdout."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first, total, _ = read_stream(proc, started)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"long_run_cost: failed: {' '.join(cmd)}\n{err}")
    return first if first is not None else wall, wall, total, usage.ru_maxrss / 1024


def row(name, wall_s, rss_mib, target_s, target_mib, **extra):
    met = (target_s is None or wall_s <= target_s) and (target_mib is None or rss_mib <= target_mib)
    return {"row": name, "wall_s": round(wall_s, 3), "peak_rss_mib": round(rss_mib, 1),
            "target_s": target_s, "target_mib": target_mib, "met": met, **extra}


def make_store(args):
    rows = []
    for name in (args.run_a, args.run_b):
        wall, rss = measured([args.make_run_store, "--out", args.store, "--gpus", str(args.gpus),
                              "--hours", str(args.make), "--name", name])
        rows.append(row(f"finish ({name}, whole run)", wall, rss, None, 64))
    return rows


def store_row(args):
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    db.close()
    samples = sum(device_samples(args, r) for r in (args.run_a, args.run_b))
    size = os.path.getsize(args.store)
    return [{"row": "store", "bytes": size, "device_samples": samples,
             "bytes_per_device_sample": round(size / samples, 2),
             "free_page_share": round(free / pages, 3) if pages else 0, "page_size": page_size}]


def device_samples(args, run):
    out = subprocess.run([args.bin, "runs", "--store", args.store, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    for r in json.loads(out)["runs"]:
        if r.get("name") == run:
            return int(r.get("device_samples") or r.get("samples") or 0) or report_samples(args, run)
    sys.exit(f"long_run_cost: no run named {run} in {args.store}")


def report_samples(args, run):
    out = subprocess.run([args.bin, "report", "--store", args.store, run, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    return sum(d.get("samples", 0) for d in json.loads(out)["devices"])


def command_rows(args, out_dir):
    g, s, a, b = args.bin, ["--store", args.store], args.run_a, args.run_b
    rows = []
    if "report" in args.rows:
        rows.append(row("report (text)", *measured([g, "report", *s, a]), 1, 256))
        rows.append(row("report (json)", *measured([g, "report", *s, a, "--format", "json"]), 1, 256))
    if "status" in args.rows:
        rows.append(row("status", *measured([g, "status", *s, a]), 1, 256))
    if "compare" in args.rows:
        rows.append(row("compare", *measured([g, "compare", *s, a, b]), 2, 256))
    if "plot" in args.rows:
        for kind in PLOT_KINDS:
            runs = [a, b] if kind == "compare" else [a]
            picture = os.path.join(out_dir, f"{kind}.png")
            rows.append(row(f"plot {kind}", *measured([g, "plot", *s, *runs, "--kind", kind, "-o", picture]), 2, 256))
    return rows


def export_rows(args, out_dir):
    rows = []
    for fmt in EXPORT_FORMATS:
        cmd = [args.bin, "export", "--store", args.store, args.run_a, "--format", fmt]
        if fmt == "tensorboard":
            folder = os.path.join(out_dir, "tb")
            wall, rss = measured([*cmd, "-o", folder])
            size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
            shutil.rmtree(folder)
            first = None
        else:
            first, wall, size, rss = streamed(cmd)
        rate = size / wall / 1e6
        r = row(f"export {fmt}", wall, rss, None, 128, first_byte_s=first and round(first, 3),
                bytes=size, mb_per_s=round(rate, 1))
        r["met"] = r["met"] and rate >= 150 and (first is None or first < 1)
        rows.append(r)
    return rows


def import_row(args):
    folder = tempfile.mkdtemp(prefix="gpuwatch-import-", dir=args.import_dir)
    try:
        path = os.path.join(folder, "a.jsonl")
        with open(path, "wb") as f:
            measured([args.bin, "export", "--store", args.store, args.run_a, "--format", "jsonl"], stdout=f)
        started = time.monotonic()
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
        read_s = time.monotonic() - started
        wall, rss = measured([args.bin, "import", "--store", os.path.join(folder, "import.db"), path],
                             env=dict(os.environ, TMPDIR=folder))
        r = row("import (jsonl)", wall, rss, None, 256, file_bytes=os.path.getsize(path),
                plain_read_s=round(read_s, 3))
        return [r]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=600) as r:
        return r.read()


def timed(fn):
    started = time.monotonic()
    fn()
    return time.monotonic() - started


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def serve_rows(args):
    server = subprocess.Popen([args.bin, "serve", "--store", args.store, "--listen", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([server.stdout], [], [], 60)
        if not ready:
            sys.exit("long_run_cost: serve printed no URL within 60 s")
        base = re.search(r"(http://[\d.]+:\d+)/", server.stdout.readline()).group(1)
        runs = {r["name"]: r for r in json.loads(get(base + "/api/runs"))["runs"]}
        a, b = runs[args.run_a]["id"], runs[args.run_b]["id"]
        idle = rss_mib(server.pid)
        url = f"{base}/api/runs/{a}"
        charts = timed(lambda: [get(url)] + [get(f"{url}/series?metric={m}&points=1200") for m in SERIES])
        complete = charts + timed(lambda: get(url + "/report"))
        compare = timed(lambda: get(f"{base}/api/compare?runs={a},{b}"))
        time.sleep(1)
        after = rss_mib(server.pid)
        gz = get(f"{url}/series?metric=gpu_util_percent&points=1200", {"Accept-Encoding": "gzip"})
        return [row("dashboard: charts drawn", charts, idle, 1, None),
                row("dashboard: page complete", complete, idle, 2, None),
                {"row": "serve after /api/compare", "wall_s": round(compare, 3), "idle_rss_mib": round(idle, 1),
                 "rss_after_mib": round(after, 1), "met": compare <= 2 and after <= idle * 1.5 + 16,
                 "series_gzip": gz[:2] == b"\x1f\x8b"}]
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", required=True, help="the store (made with --make when missing)")
    p.add_argument("--bin", default=os.path.join(REPO, "build", "gpuwatch"))
    p.add_argument("--make-run-store", default=os.path.join(REPO, "build", "make_run_store"))
    p.add_argument("--make", type=float, help="make the store's two runs of HOURS each first")
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--run-a", default="a")
    p.add_argument("--run-b", default="b")
    p.add_argument("--rows", default=",".join(r for r in ROWS if r != "finish"),
                   help="comma-separated, of: " + ", ".join(ROWS))
    p.add_argument("--import-dir", help="where import's jsonl file goes (default: $TMPDIR)")
    p.add_argument("--json-out")
    args = p.parse_args()
    args.rows = set(args.rows.split(","))
    if not args.rows <= set(ROWS):
        sys.exit(f"long_run_cost: --rows takes {', '.join(ROWS)}")
    results = []
    if args.make:
        if os.path.exists(args.store):
            sys.exit(f"long_run_cost: --make: {args.store} exists already")
        results += make_store(args)
    out_dir = tempfile.mkdtemp(prefix="gpuwatch-long-run-")
    try:
        if "store" in args.rows:
            results += store_row(args)
        results += command_rows(args, out_dir)
        if "export" in args.rows:
            results += export_rows(args, out_dir)
        if "import" in args.rows:
            results += import_row(args)
        if "serve" in args.rows:
            results += serve_rows(args)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    print_table(results, machine_meta(args.bin))
    if args.json_out:
        write_json(args.json_out, machine_meta(args.bin), results)


def print_table(results, meta):
    print(f"issue 25's table, {meta['date']}, {meta['nproc']} x {meta['cpu_model']}, build {meta['build_type']}\n")
    print("| row | wall s | peak RSS MiB | more | met |")
    print("|---|---|---|---|---|")
    for r in results:
        more = {k: v for k, v in r.items() if k not in ("row", "wall_s", "peak_rss_mib", "met")}
        met = {True: "yes", False: "**no**", None: ""}[r.get("met")]
        print(f"| {r['row']} | {r.get('wall_s', '')} | {r.get('peak_rss_mib', '')} | "
              f"{json.dumps(more)[1:-1]} | {met} |")


if __name__ == "__main__":
    main()
