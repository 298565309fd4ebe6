#!/usr/bin/env bash
# Issue 23, item 4 on one GPU: ResNet-18 fed through gpuwatch.loader() by a
# DataLoader that cannot keep up (one worker sleeping 2 ms per image), then by
# one that can (whole batches from memory, 6 workers), each under
# `gpuwatch record --advise`. Saves each run's `report --format json` and
# `status --format json` (and the text status) to $OUT, and checks with
# check_data_wait.py the data wait share the report gives (starved >= 50 %,
# fast <= 10 %) and that util.input_bound leads, citing it, only for the
# starved loader. train_loader.py prints the share it
# measured itself beside them. Needs PyTorch and torchvision.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/data_wait.db"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
conf="$OUT/short.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
nvidia-smi -L
failed=0
for mode in starved fast; do
  name="loader_$mode"
  "$GW" record --name "$name" --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" -- \
    python3 scripts/gpu-verify/train_loader.py --mode "$mode" --seconds "${SECONDS_PER_RUN:-45}" \
    2>&1 | tee "$OUT/$name.log"
  echo "$name: exit status ${PIPESTATUS[0]}"
  "$GW" report "$name" --format json > "$OUT/report_$mode.json"
  "$GW" status "$name" --format json > "$OUT/status_$mode.json"
  "$GW" status "$name" | tee "$OUT/status_$mode.txt"
  python3 scripts/gpu-verify/check_data_wait.py "$OUT/report_$mode.json" "$OUT/status_$mode.json" "$mode" \
    | tee "$OUT/check_$mode.json" || failed=1
done
exit "$failed"
