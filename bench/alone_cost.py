#!/usr/bin/env python3
"""CPU of gpuwatch and of the nvidia-smi loop, each run alone (not side by
side, so neither pays for the other's driver calls), D seconds each.
Started through `sh -c exec` so that ru_maxrss is not the launcher's."""
import os
import signal
import subprocess
import sys
import tempfile
import time

gw = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60


def measure(argv, stop_after=None, env=None):
    p = subprocess.Popen(["sh", "-c", 'exec "$@"', "sh", *argv], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    if stop_after:
        time.sleep(stop_after)
        p.send_signal(signal.SIGINT)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as d:
    env = dict(os.environ, GPUWATCH_STORE=os.path.join(d, "runs.db"))
    for rate in ("0.1", "1"):
        cpu, rss = measure([gw, "record", "--no-summary", "--interval", rate, "--", "sleep", str(seconds)], env=env)
        print(f"gpuwatch record --interval {rate}, {seconds:.0f} s alone: {cpu * 1000:.0f} ms CPU = "
              f"{cpu / seconds * 100:.3f} % of one core, peak RSS {rss:.1f} MiB")
    cpu, rss = measure([gw, "record", "--no-summary", "--interval", "0.1", "--", "true"], env=env)
    print(f"gpuwatch record -- true (fixed cost): {cpu * 1000:.0f} ms CPU")
cpu, rss = measure(["nvidia-smi", "--query-gpu=utilization.gpu,memory.used,power.draw,temperature.gpu",
                    "--format=csv,noheader", "-lms", "100"], stop_after=seconds)
print(f"nvidia-smi -lms 100, {seconds:.0f} s alone: {cpu * 1000:.0f} ms CPU = {cpu / seconds * 100:.3f} % of one core, "
      f"peak RSS {rss:.1f} MiB")
