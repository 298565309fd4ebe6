#!/usr/bin/env bash
# Issue 23, item 1 (first step) on one GPU: a CNN fed by a DataLoader that
# cannot keep up (train_cnn.py --mode starved) uses little memory too. The
# verdict must name the wait for input first (util.input_bound, action
# feed_faster); the small batch, when advised, is explained by it (info,
# "Once the input keeps up: ..."). check_causes.py asserts it on what
# `status` says of the finished run (report has no advisories yet). Writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/causes.db"
export PYTHONUNBUFFERED=1
conf="$OUT/short.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
nvidia-smi -L
"$GW" record --name starved --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" -- \
  python3 scripts/gpu-verify/train_cnn.py --mode starved --seconds 45
echo "exit status: $?"
"$GW" status starved --format json > "$OUT/status.json"
"$GW" status starved
python3 scripts/gpu-verify/check_causes.py "$OUT/status.json"
