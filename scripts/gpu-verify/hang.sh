#!/usr/bin/env bash
# Issue 23, item 3 on 2 GPUs: ddp_hang.py's rank 1 stops one step early, rank 0
# waits in an all-reduce for ever. With hang_after_s = 30, `record --advise
# --on-hang kill --after 5` must say job.hung (GPU 0 waits, GPU 1 missing)
# about 30 s after "hang begins" and stop the job: exit 76. Writes to $OUT.
# Not run yet: no 2-GPU machine was lent when it was written (2026-11-28).
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/hang.db"
export PYTHONUNBUFFERED=1
conf="$OUT/hang.conf"
printf 'window_s = 20\nwarmup_s = 10\nhang_after_s = 30\n' > "$conf"
nvidia-smi -L
date +"record starts at %s"
"$GW" record --name hang --interval 0.5 --check-every 2 --advise --advisor-config "$conf" \
  --annotate-regex '^step (?P<step>\d+)' --on-hang kill --after 5 -- \
  python3 scripts/gpu-verify/ddp_hang.py --steps 40 --step-seconds 0.5
echo "exit status: $?"
date +"record ended at %s"
"$GW" status hang --advisor-config "$conf"
"$GW" status hang --advisor-config "$conf" --format json > "$OUT/hang_status.json"
"$GW" export hang --format jsonl > "$OUT/hang.jsonl" 2>/dev/null || true
