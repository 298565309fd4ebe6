#!/usr/bin/env bash
# Runs on a one-GPU machine: the parts of issue 9 that need a real driver.
# Expects .device/gpuwatch (this tree) and .device/gpuwatch-before (the
# commit before issue 9) built elsewhere; results go to $OUT.
#   1. the cost of watching, before and after, each beside nvidia-smi
#   2. --on-underuse kill leaves a busy job with a small memory share alone,
#      and stops it when --rules names the memory rule
#   3. the Python client: log(loss=tensor) vs log(loss=tensor.item())
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }
BEFORE="$PWD/.device/gpuwatch-before"
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE=/dev/shm/gw-issue9.db XDG_STATE_HOME="$WORK/state"

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
"$GW" --version

step "1a. fixed cost (start-up and close), before and after"
python3 bench/fixed_cost.py "$BEFORE" --repeat 5
python3 bench/fixed_cost.py "$GW" --repeat 5
step "1b. per thread at 10 Hz: before, after"
python3 bench/thread_cost.py --bin "$BEFORE" --interval 0.1 --duration ${THREAD_S:-40}
python3 bench/thread_cost.py --bin "$GW" --interval 0.1 --duration ${THREAD_S:-40}
step "1c. beside nvidia-smi -lms 100: before, after"
python3 bench/sampler_cost.py real --bin "$BEFORE" --duration ${COST_S:-60} --json-out "$OUT/cost_before.json"
python3 bench/sampler_cost.py real --bin "$GW" --duration ${COST_S:-60} --json-out "$OUT/cost_after.json"
step "1d. resident memory by mapping: record (after) and nvidia-smi"
"$GW" record --interval 0.1 --no-summary -- sleep 6 & pid=$!; sleep 4
cat /proc/$pid/smaps > "$WORK/gw.smaps"; grep VmHWM /proc/$pid/status; wait
python3 .device/smaps.py "$WORK/gw.smaps"
"$BEFORE" record --interval 0.1 --no-summary -- sleep 6 & pid=$!; sleep 4
grep VmHWM /proc/$pid/status; wait

CONF="$WORK/advisor.conf"; printf 'warmup_s = 10\nwindow_s = 20\n' > "$CONF"
step "2a. busy job (80 % duty, 4 GiB of the card): --on-underuse kill --after 10 must not stop it"
"$GW" record --name busy-default --interval 0.1 --advise --check-interval 5 --advisor-config "$CONF" \
  --on-underuse kill --after 10 -- python3 scripts/gpu-verify/duty_cycle.py --duty 0.8 --seconds ${BUSY_S:-45} --gib 4
echo "exit status: $? (want 0: ran to its end)"
step "2b. the same with --rules memory.batch_too_small,util.*: stopped"
"$GW" record --name busy-memrule --interval 0.1 --advise --check-interval 5 --advisor-config "$CONF" \
  --on-underuse kill --after 10 --rules 'memory.batch_too_small,util.*' -- \
  python3 scripts/gpu-verify/duty_cycle.py --duty 0.8 --seconds ${BUSY_S:-45} --gib 4
echo "exit status: $? (want 75: stopped for underuse)"
"$GW" runs

step "3. Python client: ResNet-18 steps/s, no log / step() / log(loss=tensor) / log(loss=loss.item())"
python3 scripts/gpu-verify/log_tensor_cost.py --seconds ${LOG_S:-10} --rounds ${LOG_ROUNDS:-3}
