#!/usr/bin/env python3
"""CPU time of each gpuwatch thread during a recording (Linux).

Starts `gpuwatch record --interval I --no-summary -- sleep D`, and just
before the end reads /proc/PID/task/*/stat: user+system time per thread, by
thread name, and the recorder's own peak RSS (VmHWM, which unlike wait4's
ru_maxrss does not include the launcher's memory from before exec).
"""
import argparse
import os
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def thread_times(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        out[f"{name} ({tid})"] = (int(fields[11]) + int(fields[12])) / TICK
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
    p.add_argument("extra", nargs="*", help="more record flags")
    a = p.parse_args()
    proc = subprocess.Popen([a.bin, "record", "--interval", a.interval, "--no-summary", *a.extra, "--",
                             "sleep", str(a.duration)], stderr=subprocess.DEVNULL)
    time.sleep(a.duration - 0.5)
    times = thread_times(proc.pid)
    hwm = vm_hwm_kib(proc.pid)
    proc.wait()
    total = sum(times.values())
    print(f"gpuwatch record --interval {a.interval} {' '.join(a.extra)}: {a.duration - 0.5:.1f} s observed")
    for name, t in sorted(times.items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {t:7.3f} s CPU  {t / (a.duration - 0.5) * 100:6.3f} % of one core")
    print(f"  {'all threads':28s} {total:7.3f} s CPU  {total / (a.duration - 0.5) * 100:6.3f} % of one core")
    print(f"  peak RSS (VmHWM) {hwm / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
