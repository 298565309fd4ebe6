#!/usr/bin/env bash
# Issue 23, one verdict on a real GPU: a ResNet-18 fed by a starved loader
# (train_loader.py --mode starved) recorded with --advise and a 20 s window,
# then check_one_verdict.py asks every surface (status, report, top --once,
# serve's API, the exporter, the run exported to jsonl and imported) and
# compares them with record's end summary. Writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/one_verdict.db" PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
conf="$OUT/one_verdict.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
"$GW" record --name one_verdict --interval 0.2 --advise --advisor-config "$conf" -- \
  python3 scripts/gpu-verify/train_loader.py --mode starved --seconds "${SECONDS_PER_RUN:-30}" > "$OUT/one_verdict.log" 2>&1
echo "record: exit $?"
rm -f "$conf"  # the readers must take the config from the run
python3 scripts/gpu-verify/check_one_verdict.py "$GW" "$GPUWATCH_STORE" one_verdict "$OUT/one_verdict.log"
