#!/usr/bin/env bash
# Issue 9 items 1-2 on a real machine with 2+ GPUs. Writes to $OUT.
# 1. Another job holds GPU 0 idle (4 GiB, no work) outside gpuwatch; the
#    recorded command works GPU 1. --on-underuse kill must not stop it, and
#    the run's job GPUs must be [1] from the process tree.
# 2. CUDA_VISIBLE_DEVICES=1: only GPU 1 recorded, and the command's cuda:0
#    shows there (memory on GPU 1).
# 3. One GPU ~80 % busy with a small share of memory: not stopped by
#    default; stopped (exit 75) with --rules memory.batch_too_small,util.*.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/job_gpus.db"
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER
conf="$OUT/short.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
duty=scripts/gpu-verify/duty_cycle.py
nvidia-smi -L

echo "== 1: another job's idle GPU 0"
python3 $duty --device 0 --duty 0 --gib 4 --seconds 70 & other=$!
sleep 5
"$GW" record --name shared --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" \
  --on-underuse kill --after 15 --no-summary -- python3 $duty --device 1 --duty 1.0 --gib 40 --seconds 50
echo "exit status: $? (expected 0)"
wait $other
"$GW" report shared | grep -E "^Job GPUs"
"$GW" report shared --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("job_gpus", r["job_gpus"], "recorded", [d["gpu"] for d in r["devices"]], "processes", [(p["gpu"], p["pid"], p["name"]) for p in r["processes"]])'

echo "== 2: CUDA_VISIBLE_DEVICES=1"
CUDA_VISIBLE_DEVICES=1 "$GW" record --name visible --interval 0.2 --no-summary -- \
  python3 $duty --device 0 --duty 1.0 --gib 6 --seconds 10
echo "exit status: $?"
"$GW" report visible --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("job_gpus", r["job_gpus"], "recorded", [(d["gpu"], round(d["metrics"]["mem_used_bytes"]["max"]/2**30,1)) for d in r["devices"]])'

echo "== 3: busy with little memory"
"$GW" record --name busy-small --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" \
  --on-underuse kill --after 15 --no-summary -- python3 $duty --device 0 --duty 0.8 --gib 2 --seconds 50
echo "exit status: $? (expected 0: memory alone does not act)"
"$GW" record --name busy-small-rules --interval 0.2 --check-interval 2 --advisor-config "$conf" \
  --on-underuse kill --after 15 --rules 'memory.batch_too_small,util.*' --no-summary -- \
  python3 $duty --device 0 --duty 0.8 --gib 2 --seconds 50
echo "exit status: $? (expected 75)"
