#!/usr/bin/env bash
# Issue 23's scenario suite on 2 or 4 GPUs: DDP training with one cause of
# underuse built in on purpose (ddp_train.py), each recorded with
# `record --advise`, then what `status` and `report` say of it saved as JSON
# and checked by check_ddp.py. The hang runs with the default hang threshold
# and `--on-hang kill --after 10`, so it ends itself. Usage:
#   ddp_scenarios.sh [SCENARIO ...]   (default: all five)
# Writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/ddp.db"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
gpus=$(nvidia-smi -L | wc -l)
conf="$OUT/ddp.conf"
# Short windows so that a scenario of a minute gets a verdict; the hang
# threshold stays at its default (60 s).
printf 'window_s = 20\nwarmup_s = 15\n' > "$conf"
nvidia-smi -L
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(balanced host_slow data_starved uneven hang)
for s in "${scenarios[@]}"; do
  extra=()
  seconds=50
  if [ "$s" = hang ]; then
    extra=(--on-hang kill --after 10)
    seconds=150
  fi
  started=$(date +%s.%N)
  timeout 240 "$GW" record --name "ddp_$s" --interval 0.2 --advise --advisor-config "$conf" "${extra[@]}" -- \
    python3 -m torch.distributed.run --standalone --nproc_per_node="$gpus" scripts/gpu-verify/ddp_train.py \
    --scenario "$s" --seconds "$seconds" --hang-after-s 25 > "$OUT/ddp_$s.log" 2>&1
  code=$?
  ended=$(date +%s.%N)
  began=$(sed -n 's/.*hang begins at \([0-9.]*\).*/\1/p' "$OUT/ddp_$s.log" | head -1)
  echo "{\"scenario\": \"$s\", \"exit\": $code, \"started\": $started, \"ended\": $ended, \"gpus\": $gpus, \"hang_began\": \"${began:-0}\"}" \
    > "$OUT/ddp_$s.exit.json"
  echo "== $s: exit $code after $(python3 -c "print(round($ended - $started, 1))") s"
  grep -E "hang begins|advis|job\.|balance\.|util\.|warning|critical" "$OUT/ddp_$s.log" | tail -20
  "$GW" status "ddp_$s" --format json > "$OUT/ddp_$s.status.json"
  "$GW" report "ddp_$s" --format json > "$OUT/ddp_$s.report.json"
  "$GW" status "ddp_$s"
done
python3 scripts/gpu-verify/check_ddp.py "$OUT" "${scenarios[@]}"
