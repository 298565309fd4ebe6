#!/usr/bin/env bash
# Where `gpuwatch exporter`'s CPU goes on real GPUs: per thread over 40 s at
# --interval 1, unscraped (schedstat ns and context switches), and the same
# for `record` at 1 s for comparison.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE=/dev/shm/gw-threads.db
per_thread() {  # PID SECONDS
  python3 - "$1" "$2" <<'PY'
import os, sys, time
pid, secs = sys.argv[1], float(sys.argv[2])
def snap():
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        b = f"/proc/{pid}/task/{tid}"
        try:
            name = open(f"{b}/comm").read().strip()
            ns = int(open(f"{b}/schedstat").read().split()[0])
            sw = sum(int(l.split()[1]) for l in open(f"{b}/status") if l.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")))
        except OSError:
            continue
        out[tid] = (name, ns, sw)
    return out
a = snap(); time.sleep(secs); b = snap()
total = 0
for tid, (name, ns, sw) in sorted(b.items(), key=lambda kv: -(kv[1][1] - a.get(kv[0], (0, 0, 0))[1])):
    n0, ns0, sw0 = a.get(tid, (name, 0, 0))
    d = (ns - ns0) / 1e6; total += d
    if d > 0.05 or sw - sw0 > 0:
        print(f"{name:16s} {d:9.2f} ms  {100 * d / 1e3 / secs:6.3f} %  {(sw - sw0) / secs:6.1f} wake-ups/s")
print(f"{'all':16s} {total:9.2f} ms  {100 * total / 1e3 / secs:6.3f} %")
PY
}
nvidia-smi -L
echo "### exporter --interval 1, every GPU"
"$GW" exporter --listen 127.0.0.1:9431 > /dev/null 2>&1 &
e=$!; sleep 4; per_thread "$e" 40; kill -TERM "$e"; wait "$e"
echo "### exporter --interval 1 --gpus 0 (one GPU)"
"$GW" exporter --listen 127.0.0.1:9432 --gpus 0 > /dev/null 2>&1 &
e=$!; sleep 4; per_thread "$e" 30; kill -TERM "$e"; wait "$e"
echo "### record --interval 1 -- sleep 40, every GPU"
"$GW" record --interval 1 --no-summary -- sleep 40 > /dev/null 2>&1 &
sleep 4; r=$(pgrep -n -f "record --interval 1 --no-summary -- sleep 40"); per_thread "$r" 30; wait
