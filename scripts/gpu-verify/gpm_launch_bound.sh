#!/usr/bin/env bash
# Runs on a Hopper machine: the case GPM exists for (issue 11). Back-to-back
# 64x64 matmuls from Python keep "utilization" (any kernel running) high
# while the SMs are nearly idle; GPM's SM active and tensor active say so.
# Then top --once beside the same loop, to see the process row.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/launch.db" PYTHONUNBUFFERED=1
LOOP='
import time, torch
a = torch.randn(64, 64, device="cuda")
t = time.time()
while time.time() - t < DURATION: b = a @ a
torch.cuda.synchronize()'
echo "### record: 10 s of back-to-back 64x64 fp32 matmuls"
"$GW" record --interval 0.5 --name launch-bound -- python3 -c "${LOOP/DURATION/10}" > /dev/null
"$GW" export launch-bound --format jsonl | python3 -c "
import json, sys
keys = ['gpu_util_percent', 'sm_active_percent', 'sm_occupancy_percent', 'tensor_active_percent', 'fp32_active_percent']
print('elapsed_s', *keys)
for line in sys.stdin:
    s = json.loads(line)
    if s.get('type') == 'device' and not s.get('slow_values_carried') and s.get('sm_active_percent') is not None:
        print(f\"{s['elapsed_s']:.1f}\", *[s.get(k) for k in keys])"
echo; echo "### top --once --width 110, 4 s into the same loop"
python3 -c "${LOOP/DURATION/8}" &
sleep 4; "$GW" top --once --width 110 | grep -v '^ *$'; wait
