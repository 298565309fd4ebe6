#!/usr/bin/env python3
"""CPU time and wake-ups of each gpuwatch thread during a recording (Linux).

Starts `gpuwatch record --interval I --no-summary -- sleep D`, and just
before the end reads, per thread and by thread name: the time it ran
(/proc/PID/task/TID/schedstat, in nanoseconds; /proc/.../stat's clock ticks
of 10 ms are too coarse for threads that use 0.01 % of a core), how often it
was switched in (voluntary + involuntary context switches: each wake-up costs
tens of microseconds in a VM), and the recorder's own peak RSS (VmHWM, which
unlike wait4's ru_maxrss does not include the launcher's memory from before
exec). The window starts --skip seconds in, so start-up is left out.
"""
import argparse
import os
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def read_thread(pid, tid):
    """(name, seconds run, context switches) of one thread, or None if gone."""
    base = f"/proc/{pid}/task/{tid}"
    try:
        with open(f"{base}/comm") as f:
            name = f.read().strip()
        switches = 0
        with open(f"{base}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                    switches += int(line.split()[1])
        try:
            with open(f"{base}/schedstat") as f:
                seconds = int(f.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            with open(f"{base}/stat") as f:
                text = f.read()
            fields = text[text.rindex(")") + 2:].split()
            seconds = (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return None
    return name, seconds, switches


def thread_times(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        got = read_thread(pid, tid)
        if got is not None:
            out[f"{got[0]} ({tid})"] = got[1:]
    return out


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", default="gpuwatch")
    p.add_argument("--interval", default="0.1")
    p.add_argument("--duration", type=float, default=20)
    p.add_argument("--skip", type=float, default=2.0, help="seconds of start-up left out")
    p.add_argument("extra", nargs="*", help="more record flags")
    a = p.parse_args()
    proc = subprocess.Popen([a.bin, "record", "--interval", a.interval, "--no-summary", *a.extra, "--",
                             "sleep", str(a.duration)], stderr=subprocess.DEVNULL)
    time.sleep(a.skip)
    before = thread_times(proc.pid)
    t0 = time.monotonic()
    time.sleep(a.duration - a.skip - 0.5)
    after = thread_times(proc.pid)
    window = time.monotonic() - t0
    hwm = vm_hwm_kib(proc.pid)
    proc.wait()
    rows = []
    for name, (run_s, switches) in after.items():
        run0, sw0 = before.get(name, (0.0, 0))
        rows.append((name, run_s - run0, switches - sw0))
    total = sum(r[1] for r in rows)
    wakeups = sum(r[2] for r in rows)
    print(f"gpuwatch record --interval {a.interval} {' '.join(a.extra)}: {window:.1f} s observed "
          f"(from {a.skip:.0f} s after start)")
    for name, run_s, switches in sorted(rows, key=lambda r: -r[1]):
        print(f"  {name:28s} {run_s * 1e3:8.2f} ms CPU  {run_s / window * 100:6.3f} % of one core  "
              f"{switches / window:7.1f} switches/s")
    print(f"  {'all threads':28s} {total * 1e3:8.2f} ms CPU  {total / window * 100:6.3f} % of one core  "
          f"{wakeups / window:7.1f} switches/s")
    print(f"  peak RSS (VmHWM) {hwm / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
