#!/usr/bin/env bash
# Runs on an NVIDIA machine: device events (XID/ECC through NVML's event API),
# the MIG listing, and what a GPM round costs, against the real driver.
# Expects .device/gpuwatch (and .device/lib/) as common.sh says, torch for
# the load, and .device/nvml_loop (bench/nvml_loop.cpp); results go to $OUT.
#   What to look for: `devices` says MIG disabled (or lists instances); a
#   recorded run ends promptly (the event thread waits 250 ms at a time) and
#   stores no xid/ecc event on a healthy GPU; the gw-events thread uses no
#   CPU to speak of while it waits; `top --once` has device_events; the GPM
#   round's CPU per tick against the empty loop.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/events.db" PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,mig.mode.current,ecc.mode.current --format=csv,noheader
step "devices (text)"; "$GW" devices
step "devices --json: schema_version and mig"
"$GW" devices --json | python3 -c "
import json,sys; d=json.load(sys.stdin); print('schema_version', d.get('schema_version'))
for g in d.get('devices', d.get('gpus', [])): print(g.get('index'), g.get('name'), 'mig:', g.get('mig'))"

step "record -- true: how long past the command's end"
/usr/bin/time -f "record -- true took %e s" "$GW" record --no-summary --name ev-true -- true

step "record 6 s of bf16 matmul; per-thread CPU at 5 s"
"$GW" record --interval 0.1 --name ev-load -- python3 -c "
import time, torch
a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16)
t = time.time()
while time.time() - t < 6: b = a @ a
torch.cuda.synchronize()" > "$OUT/record.txt" 2>&1 &
sleep 5
pid=$(pgrep -f "gpuwatch record --interval 0.1 --name ev-load" | head -1)
for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(awk '{print "utime+stime ticks:", $14+$15}' $t/stat)"; done
wait
tail -5 "$OUT/record.txt"
"$GW" report ev-load --format json > "$OUT/report.json"
python3 -c "
import json; r=json.load(open('$OUT/report.json'))
kinds=[e['kind'] for e in r['events']]; print('event kinds:', sorted(set(kinds)))
print('xid/ecc events:', [e for e in r['events'] if e['kind'] in ('xid','ecc_double_bit','ecc_single_bit')])"

step "record with CUDA_VISIBLE_DEVICES=0: job GPUs and their variables"
CUDA_VISIBLE_DEVICES=0 "$GW" record --no-summary --name ev-visible -- true
"$GW" report ev-visible --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['job_gpus'])"

step "top --once --format json: device_events and mig_instances"
"$GW" top --once --format json > "$OUT/top.json"
python3 -c "
import json; t=json.load(open('$OUT/top.json')); print('device_events' in t, t.get('device_events'))
print([ (g.get('index'), g.get('mig_instances')) for g in t.get('gpus', [])])"

step "GPM round cost (nvml_loop, 10 Hz, 20 s each)"
.device/nvml_loop 20 empty gpm tick
