#!/usr/bin/env python3
"""CPU time gpuwatch spends once per recording (start-up, driver probe, final
read and store close), so that steady-state cost can be told apart from it:
steady = (CPU of a D-second run - fixed) / D."""
import os
import subprocess
import sys

gw = sys.argv[1] if len(sys.argv) > 1 else "gpuwatch"
runs = []
for _ in range(3):
    p = subprocess.Popen([gw, "record", "--no-summary", "--interval", "0.1", "--", "true"],
                         stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    runs.append(ru.ru_utime + ru.ru_stime)
print(f"fixed cost of one recording (record -- true): {', '.join(f'{r * 1000:.1f}' for r in runs)} ms CPU")
