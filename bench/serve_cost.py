#!/usr/bin/env python3
"""How fast `gpuwatch serve` answers a long run, and under load.

Against a store holding one long run (make it with build/make_run_store: 8 GPUs x 35 h x 10 Hz,
10 M samples, by default; or pass --store), the server is started and measured from outside:

  open     what the run page asks for before its charts are drawn: /api/runs/ID, then the four
           main metrics' series at 1200 points, in parallel as a browser does (wall time to the
           last answer);
  zoom     the same four series over one hour in the middle of the run, in parallel;
  report   /api/runs/ID/report alone (the page shows it below the charts when it comes);
  load     wrk on /api/runs/ID for --load-seconds with 2 threads and 8 connections: requests a
           second it sustained, latency p50/p99, errors.

open, zoom and report are the median of --repeat tries after one warm-up (the page cache holds
the store, as it would for a run looked at twice). Targets (issue 12): open under 1 s, zoom under
300 ms, 1,000 requests/s with p99 under 50 ms and no errors.

Python 3 standard library, plus wrk for the load (skipped without it). Prints a markdown table;
--json-out also writes every number.
"""
import argparse
import concurrent.futures
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sampler_cost import machine_meta, write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRICS = ("gpu_util_percent", "mem_used_bytes", "power_watts", "temp_gpu_celsius")


def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def timed_parallel(urls):
    """Wall seconds until every URL has answered, asked all at once."""
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(len(urls)) as pool:
        list(pool.map(get, urls))
    return time.perf_counter() - started


def median_of(fn, repeat):
    fn()  # warm-up
    return statistics.median(fn() for _ in range(repeat))


def wrk_load(url, seconds):
    if not shutil.which("wrk"):
        return {"warning": "wrk is not installed"}
    out = subprocess.run(["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency", url], capture_output=True, text=True,
                         timeout=seconds + 60).stdout
    unit = {"us": 1e-3, "ms": 1.0, "s": 1e3}

    def latency(label):
        m = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)", out, re.M)
        return float(m.group(1)) * unit[m.group(2)] if m else None

    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {"requests_per_s": float(rate.group(1)) if rate else None, "p50_ms": latency("50"),
            "p99_ms": latency("99"), "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1) if socket_errors else None}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(REPO, "build", "gpuwatch"), help="gpuwatch (default: %(default)s)")
    p.add_argument("--store", help="a store whose newest run is measured (default: make one with make_run_store)")
    p.add_argument("--make-run-store", default=os.path.join(REPO, "build", "make_run_store"),
                   help="the store maker (default: %(default)s)")
    p.add_argument("--repeat", type=int, default=5, help="tries of open, zoom and report (default: %(default)s)")
    p.add_argument("--load-seconds", type=int, default=30, help="wrk's duration (default: %(default)s)")
    p.add_argument("--json-out", help="also write all numbers here as JSON")
    args = p.parse_args()
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"serve_cost: {args.bin} is not an executable (build gpuwatch, or pass --bin)")
    if args.repeat < 1 or args.load_seconds < 1:
        sys.exit("serve_cost: --repeat and --load-seconds must be positive")
    tmp = tempfile.mkdtemp(prefix="gpuwatch-serve-cost-")
    store = args.store
    if not store:
        store = os.path.join(tmp, "runs.db")
        subprocess.run([args.make_run_store, "--out", store], check=True)
    env = dict(os.environ, GPUWATCH_STORE=store)
    server = subprocess.Popen([args.bin, "serve", "--listen", "127.0.0.1:0"], env=env, stdout=subprocess.PIPE,
                              text=True)
    try:
        ready, _, _ = select.select([server.stdout], [], [], 30)
        if not ready:
            sys.exit("serve_cost: the server printed no URL within 30 s")
        base = re.search(r"(http://[\d.]+:\d+)/", server.stdout.readline()).group(1)
        run = json.loads(get(base + "/api/runs"))["runs"][0]
        duration = run["duration_s"]
        run_url = f"{base}/api/runs/{run['id']}"
        full = [f"{run_url}/series?metric={m}&points=1200" for m in METRICS]
        middle = duration / 2
        zoom = [f"{run_url}/series?metric={m}&points=1200&from={middle}&to={middle + 3600}" for m in METRICS]

        def open_page():
            started = time.perf_counter()
            get(run_url)
            return time.perf_counter() - started + timed_parallel(full)

        row = {
            "run": run["name"], "gpus": len(run["gpus"]), "hours": round(duration / 3600, 2),
            "open_s": median_of(open_page, args.repeat),
            "zoom_s": median_of(lambda: timed_parallel(zoom), args.repeat),
            "report_s": median_of(lambda: timed_parallel([run_url + "/report"]), args.repeat),
            "load": wrk_load(run_url, args.load_seconds),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    meta = machine_meta(args.bin)
    load = row["load"]
    print(f"gpuwatch serve cost, {meta['date']}, {meta['nproc']} x {meta['cpu_model']}, build {meta['build_type']}\n")
    print("| run | GPUs | hours | open s | zoom s | report s | load req/s | load p50 ms | load p99 ms | non-2xx |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {row['run']} | {row['gpus']} | {row['hours']} | {row['open_s']:.3f} | {row['zoom_s']:.3f} | "
          f"{row['report_s']:.3f} | {load.get('requests_per_s')} | {load.get('p50_ms')} | {load.get('p99_ms')} | "
          f"{load.get('non_2xx')} |")
    if load.get("warning"):
        print(f"\nwarning: {load['warning']}")
    if args.json_out:
        write_json(args.json_out, meta, [row])


if __name__ == "__main__":
    main()
