#!/usr/bin/env bash
# Two GPUs with a known imbalance: GPU 0 busy all the time holding 4 GiB,
# GPU 1 busy half of each second holding 8 GiB. Writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/multi.db"
nvidia-smi -L
"$GW" devices | grep '^GPU'
"$GW" record --interval 0.2 --name imbalance --output-dir "$OUT/seed" -- sh -c \
  'python3 scripts/gpu-verify/duty_cycle.py --device 0 --duty 1.0 --gib 4 &
   python3 scripts/gpu-verify/duty_cycle.py --device 1 --duty 0.5 --gib 8 &
   wait'
echo "exit status: $?"
"$GW" report imbalance --format json > "$OUT/multi_report.json"
python3 - "$OUT" <<'PY'
import glob, json, sys
out = sys.argv[1]
multi = json.load(open(glob.glob(out + "/seed/*_multi_gpu.json")[0]))
print(f"_multi_gpu.json: {len(multi)} ticks, gpu_count {multi[0]['aggregate_stats']['gpu_count']}, "
      f"last aggregate {multi[-1]['aggregate_stats']}")
r = json.load(open(out + "/multi_report.json"))
for b in r["load_balance"]:
    print(f"load balance {b['metric']}: CV {b['cv_percent']:.1f} % ({b['quality']}), straggler GPU {b['straggler_gpu']}, "
          f"per-GPU means {[round(x, 1) for x in b['per_gpu_mean']]}")
PY
