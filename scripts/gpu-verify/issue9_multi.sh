#!/usr/bin/env bash
# Runs on a machine with two GPUs (issue 9 item 2): which GPUs are the job's.
#   a. CUDA_VISIBLE_DEVICES=1: only GPU 1 is recorded, and judged
#   b. no CUDA_VISIBLE_DEVICES, the job on GPU 1 while another job holds GPU 0
#      idle: both recorded, only GPU 1 judged; --on-underuse kill does not stop
#      the busy job for the idle neighbour
#   c. CUDA_VISIBLE_DEVICES by UUID
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE=/dev/shm/gw-issue9-multi.db XDG_STATE_HOME="$WORK/state"
CONF="$WORK/advisor.conf"; printf 'warmup_s = 10\nwindow_s = 20\n' > "$CONF"

step "machine"; date -u; nvidia-smi -L; "$GW" devices | grep -E "^GPU|uuid"
UUID1=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 1)

step "a. CUDA_VISIBLE_DEVICES=1 record -- busy job on its cuda:0"
CUDA_VISIBLE_DEVICES=1 "$GW" record --name cvd1 --interval 0.2 -- \
  python3 scripts/gpu-verify/duty_cycle.py --device 0 --duty 0.9 --seconds 20 --gib 2
echo "exit status: $?"
"$GW" report cvd1 | grep -iE "job gpu|^GPU [0-9]" | head
"$GW" report cvd1 --format json > "$WORK/cvd1.json"
python3 -c "import json; r=json.load(open('$WORK/cvd1.json')); print('recorded:', [d['gpu'] for d in r['devices']], 'job_gpus:', r.get('job_gpus'))"

step "b. no CUDA_VISIBLE_DEVICES; another job holds GPU 0 idle; ours is busy on GPU 1; --on-underuse kill --after 10"
python3 -c "
import time, torch
x = torch.ones(6 * 2**30, dtype=torch.uint8, device='cuda:0')
torch.cuda.synchronize(); time.sleep(60)" &
other=$!
sleep 8
"$GW" record --name neighbour --interval 0.2 --advise --check-interval 5 --advisor-config "$CONF" \
  --on-underuse kill --after 10 -- python3 scripts/gpu-verify/duty_cycle.py --device 1 --duty 0.9 --seconds 40 --gib 30
echo "exit status: $? (want 0: the idle GPU 0 is another job's)"
kill $other 2>/dev/null; wait $other 2>/dev/null
"$GW" report neighbour | grep -iE "job gpu|balance|^GPU [0-9]" | head
"$GW" report neighbour --format json > "$WORK/neighbour.json"
python3 -c "import json; r=json.load(open('$WORK/neighbour.json')); print('recorded:', [d['gpu'] for d in r['devices']], 'job_gpus:', r.get('job_gpus'))"
"$GW" status neighbour | head -20

step "c. CUDA_VISIBLE_DEVICES=<uuid of GPU 1>"
CUDA_VISIBLE_DEVICES="$UUID1" "$GW" record --name cvd-uuid --interval 0.2 --no-summary -- \
  python3 scripts/gpu-verify/duty_cycle.py --device 0 --duty 0.5 --seconds 8 --gib 1
echo "exit status: $?"
"$GW" report cvd-uuid --format json > "$WORK/uuid.json"
python3 -c "import json; r=json.load(open('$WORK/uuid.json')); print('recorded:', [d['gpu'] for d in r['devices']], 'job_gpus:', r.get('job_gpus'))"
