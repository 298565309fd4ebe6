#!/usr/bin/env python3
"""CPU time gpuwatch spends once per recording (start-up, driver probe, final
read and store close), so that steady-state cost can be told apart from it:
steady = (CPU of a D-second run - fixed) / D.

Also breaks the fixed cost down by running less and less of it (median of
--repeat runs each, CPU = user + sys of the process and what it waited for):

  version      loading the program and its libraries, parsing the command line
  devices      + loading NVML, nvmlInit, probing every metric once
  record-new   a whole `record -- true` on a store file that does not exist yet
  record       a whole `record -- true` on an existing store (the usual case)
  nvidia-smi   one `nvidia-smi --query-gpu=...` (its own fixed cost), if found

Usage: fixed_cost.py [GPUWATCH] [--repeat N]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile

QUERY = "utilization.gpu,memory.used,power.draw,temperature.gpu"


def cpu_of(argv, env):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpuwatch", nargs="?", default="gpuwatch")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gw-fixed-")
    env = dict(os.environ, GPUWATCH_STORE=os.path.join(tmp, "runs.db"))
    record = [a.gpuwatch, "record", "--no-summary", "--interval", "0.1", "--", "true"]
    cases = [("version", [a.gpuwatch, "--version"]), ("devices", [a.gpuwatch, "devices"])]
    rows = []
    for name, argv in cases:
        rows.append((name, [cpu_of(argv, env) for _ in range(a.repeat)]))
    fresh = []
    for i in range(a.repeat):
        fresh_env = dict(env, GPUWATCH_STORE=os.path.join(tmp, f"new{i}.db"))
        fresh.append(cpu_of(record, fresh_env))
    rows.append(("record-new", fresh))
    cpu_of(record, env)  # the store exists from here on
    rows.append(("record", [cpu_of(record, env) for _ in range(a.repeat)]))
    smi = shutil.which("nvidia-smi")
    if smi:
        rows.append(("nvidia-smi", [cpu_of([smi, f"--query-gpu={QUERY}", "--format=csv,noheader"], env)
                                    for _ in range(a.repeat)]))
    shutil.rmtree(tmp, ignore_errors=True)
    print("| what | median ms CPU | all runs ms |")
    print("|---|---|---|")
    for name, runs in rows:
        print(f"| {name} | {statistics.median(runs) * 1000:.1f} | {', '.join(f'{r * 1000:.1f}' for r in runs)} |")


if __name__ == "__main__":
    main()
