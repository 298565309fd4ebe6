#!/usr/bin/env python3
"""What `gpuwatch exporter` costs: CPU and peak memory idle and under scrapes, and scrape latency.

Against the fake NVML driver with --gpus fake GPUs (8 by default) at --interval (1 s), two runs
of --duration seconds each (see bench/README.md):

  idle     nothing scrapes: the exporter's CPU (% of one core) and peak RSS;
  scraped  --rate scrapes a second (100) of GET /metrics on one keep-alive connection
           (http.client): latency p50/p99/max, and the exporter's CPU and peak RSS.

CPU is the sum over the exporter's threads of /proc/PID/task/TID/schedstat (nanoseconds: the
clock ticks of /proc/PID/stat are 10 ms, a sixth of the whole budget of 0.1 % over 60 s), read
--skip seconds after the URL is printed and again at the end, so start-up is left out; the whole
process's user + system time from wait4 is reported beside it. Peak RSS is the larger of
wait4's ru_maxrss and the VmHWM polled from /proc. The exporter is started as
bench/sampler_cost.py starts what it measures, whose helpers this script uses.

Python 3 standard library only. Prints a markdown table; --json-out also writes every number.
"""
import argparse
import http.client
import os
import re
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sampler_cost import (Measured, add_binary_options, check_binary_options, fmt, gw_env,  # noqa: E402
                          loadavg, machine_meta, write_json)
from thread_cost import thread_times  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_and_switches(pid):
    """(seconds run, context switches) summed over the process's live threads."""
    times = thread_times(pid).values()
    return sum(t for t, _ in times), sum(s for _, s in times)


def wait_for_url(m, stdout_path, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with open(stdout_path, encoding="utf-8", errors="replace") as f:
            found = re.search(r"http://([^/\s]+)/metrics", f.read())
        if found:
            return found.group(1)
        if m.poll():
            sys.exit(f"exporter_cost: the exporter exited {m.exit_code}:\n{m.stderr_text()}")
        time.sleep(0.05)
    m.kill()
    sys.exit(f"exporter_cost: no URL printed within {timeout_s:g} s:\n{m.stderr_text()}")


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def scrape_loop(address, rate, until):
    """Latencies (s) of GET /metrics at `rate` a second until `until`, on one keep-alive
    connection: from sending each request, and from when it was due on a fixed schedule (so that
    a slow answer also counts in the ones it made late, which the first measure would hide)."""
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=5)
    latencies, from_due, sizes, errors = [], [], set(), 0
    period = 1.0 / rate
    due = time.monotonic()
    try:
        while due < until and time.monotonic() < until:
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            sent = time.monotonic()
            try:
                conn.request("GET", "/metrics")
                response = conn.getresponse()
                body = response.read()
                if response.status != 200:
                    errors += 1
                sizes.add(len(body))
            except (OSError, http.client.HTTPException):
                errors += 1
                conn.close()
                conn = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=5)
            done = time.monotonic()
            latencies.append(done - sent)
            from_due.append(done - due)
            due += period
    finally:
        conn.close()
    return latencies, from_due, sizes, errors


def one_run(args, env, tmp, scraped):
    name = "scraped" if scraped else "idle"
    argv = [args.bin, "exporter", "--listen", "127.0.0.1:0", "--interval", f"{args.interval:g}"]
    stdout_path = os.path.join(tmp, f"{name}.stdout")
    load_before = loadavg()
    what = f"{args.rate:g} scrapes/s" if scraped else "no scrapes"
    print(f"exporter_cost: {name}: {args.duration:g} s, {args.gpus} fake GPUs at {args.interval:g} s, {what} "
          f"(load {load_before})...", file=sys.stderr, flush=True)
    m = Measured(argv, env=env, stdout_path=stdout_path, stderr_path=os.path.join(tmp, f"{name}.stderr"))
    try:
        address = wait_for_url(m, stdout_path)
        time.sleep(args.skip)
        cpu0, sw0 = cpu_and_switches(m.pid)
        t0 = time.monotonic()
        end = t0 + args.duration
        latencies, from_due, sizes, errors = [], [], set(), 0
        if scraped:
            latencies, from_due, sizes, errors = scrape_loop(address, args.rate, end)
        while time.monotonic() < end:
            m.poll()
            time.sleep(min(0.25, max(0.0, end - time.monotonic())))
        cpu1, sw1 = cpu_and_switches(m.pid)
        window_s = time.monotonic() - t0
        m.poll()
        m.stop(signals=(signal.SIGTERM, signal.SIGKILL))
    except BaseException:
        m.kill()
        raise
    if m.exit_code != 0:
        sys.exit(f"exporter_cost: {' '.join(argv)} exited {m.exit_code}:\n{m.stderr_text()}")
    cpu = cpu1 - cpu0
    lat_ms = sorted(1000.0 * x for x in latencies)
    due_ms = sorted(1000.0 * x for x in from_due)
    row = {
        "run": name,
        "gpus": args.gpus,
        "interval_s": args.interval,
        "scrape_rate_hz": args.rate if scraped else 0,
        "window_s": round(window_s, 3),
        "cpu_s": round(cpu, 5),
        "cpu_percent_one_core": 100.0 * cpu / window_s,
        "wakeups_per_s": (sw1 - sw0) / window_s,
        "whole_process_cpu_s": round(m.cpu_s(), 4),
        "whole_process_wall_s": round(m.wall_s, 3),
        "peak_rss_mib": round(m.peak_rss_mib(), 2),
        "ru_maxrss_mib": round(m.rusage.ru_maxrss / 1024.0, 2),
        "vm_hwm_mib_polled": round(m.vm_hwm_kib / 1024.0, 2) if m.vm_hwm_kib else None,
        "command": " ".join(argv),
        "load_before": load_before,
        "load_after": loadavg(),
    }
    if scraped:
        row.update({
            "scrapes": len(lat_ms),
            "scrape_errors": errors,
            "body_bytes": sorted(sizes),
            "p50_ms": percentile(lat_ms, 50),
            "p99_ms": percentile(lat_ms, 99),
            "max_ms": lat_ms[-1] if lat_ms else None,
            "p99_from_due_ms": percentile(due_ms, 99),
            "max_from_due_ms": due_ms[-1] if due_ms else None,
        })
    return row


def markdown(rows):
    head = ["run", "GPUs", "interval s", "scrapes/s", "window s", "CPU s", "% of one core", "wake-ups/s",
            "peak RSS MiB", "scrapes", "errors", "body bytes", "p50 ms", "p99 ms", "max ms",
            "p99 from due ms"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        body = r.get("body_bytes")
        cells = [r["run"], fmt(r["gpus"]), f"{r['interval_s']:g}", f"{r['scrape_rate_hz']:g}",
                 fmt(r["window_s"], 1), fmt(r["cpu_s"], 4), fmt(r["cpu_percent_one_core"], 3),
                 fmt(r["wakeups_per_s"], 1), fmt(r["peak_rss_mib"], 1), fmt(r.get("scrapes")),
                 fmt(r.get("scrape_errors")),
                 "–" if not body else (f"{body[0]}" if len(body) == 1 else f"{body[0]}–{body[-1]}"),
                 fmt(r.get("p50_ms"), 3), fmt(r.get("p99_ms"), 3), fmt(r.get("max_ms"), 3),
                 fmt(r.get("p99_from_due_ms"), 3)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See bench/README.md for what the numbers mean.")
    add_binary_options(p)
    p.add_argument("--duration", type=float, default=60.0, help="seconds measured per run (default: %(default)s)")
    p.add_argument("--skip", type=float, default=3.0, help="seconds left out after start-up (default: %(default)s)")
    p.add_argument("--interval", type=float, default=1.0, help="the exporter's --interval (default: %(default)s)")
    p.add_argument("--rate", type=float, default=100.0, help="scrapes a second in the scraped run (default: %(default)s)")
    p.add_argument("--runs", default="idle,scraped", help="which runs, comma list (default: %(default)s)")
    p.add_argument("--json-out", help="also write all numbers here as JSON")
    args = p.parse_args()
    check_binary_options(args, "exporter_cost")
    if args.duration <= 0 or args.rate <= 0 or args.skip < 0:
        sys.exit("exporter_cost: --duration and --rate must be positive, --skip not negative")
    runs = [r for r in args.runs.split(",") if r]
    if not runs or set(runs) - {"idle", "scraped"}:
        sys.exit("exporter_cost: --runs takes idle, scraped or both")
    fake = args.fake_nvml or os.path.join(os.path.dirname(os.path.abspath(args.bin)), "tests", "fake_nvml",
                                          "libnvidia-ml-fake.so")
    if not os.path.exists(fake):
        sys.exit(f"exporter_cost: fake NVML not found at {fake} (build fake_nvml, or pass --fake-nvml)")

    meta = {**machine_meta(args.bin), "fake_nvml": fake, "fake_nvml_set": f"gpu_count={args.gpus}"}
    with tempfile.TemporaryDirectory(prefix="gpuwatch-bench-") as tmp:
        # The exporter keeps no store; the variable keeps a stray one out of the user's.
        env = gw_env(os.path.join(tmp, "runs.db"), fake, args.gpus)
        rows = [one_run(args, env, tmp, scraped=(r == "scraped")) for r in runs]

    print(f"gpuwatch exporter cost, {meta['date']}, {meta['nproc']} x {meta['cpu_model']}, "
          f"build {meta['build_type']}, fake NVML {meta['fake_nvml_set']}")
    print()
    print(markdown(rows))
    if args.json_out:
        write_json(args.json_out, meta, rows)


if __name__ == "__main__":
    main()
