#!/usr/bin/env bash
# Issue 26 on a real GPU: two annotated PyTorch trainings (train_story.py, six
# epochs with train and val phases, loss, lr, val_loss and checkpoint marks),
# the first with a fast input pipeline, the second with a slow one. While the
# first records, `serve`'s live stream and `top --once` are captured; after
# both, the report, the compare, the plots and the store come back, so that
# the run page can be opened and photographed on a machine with a browser.
# check_story.py asserts what the captures must show.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
set -u
export GPUWATCH_STORE=$OUT/runs.db
export PYTHONPATH=$PWD/python:$PWD/scripts/gpu-verify
EPOCHS=${EPOCHS:-6}
FAST_ITEMS=${FAST_ITEMS:-80000}  # long enough for the live captures
SLOW_ITEMS=${SLOW_ITEMS:-20000}

"$GW" serve --listen 127.0.0.1:9410 >"$OUT/serve_log.txt" 2>&1 &
serve=$!
"$GW" record --name story-fast --interval 0.2 -- python3 scripts/gpu-verify/train_story.py \
  --epochs "$EPOCHS" --items "$FAST_ITEMS" >"$OUT/record_fast.txt" 2>&1 &
rec=$!
sleep 12
run=$(curl -s http://127.0.0.1:9410/api/runs | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][-1]["id"])')
echo "live run $run"
timeout 15 curl -sN "http://127.0.0.1:9410/api/live?run=$run" >"$OUT/live_stream.txt" 2>/dev/null
curl -s "http://127.0.0.1:9410/api/runs/$run" >"$OUT/live_run.json"
"$GW" top --once --width 160 >"$OUT/top_160.txt" 2>&1
"$GW" top --once --format json >"$OUT/top.json" 2>&1
"$GW" status --format json >"$OUT/status_live.json" 2>&1
wait "$rec"; echo "fast run exit $?"
"$GW" record --name story-slow --interval 0.2 -- python3 scripts/gpu-verify/train_story.py \
  --epochs "$EPOCHS" --items "$SLOW_ITEMS" --slow-loader >"$OUT/record_slow.txt" 2>&1
echo "slow run exit $?"
kill "$serve"; wait "$serve" 2>/dev/null
"$GW" report story-fast >"$OUT/report_fast.txt" 2>&1
"$GW" report story-fast --format json >"$OUT/report_fast.json" 2>&1
"$GW" report story-slow >"$OUT/report_slow.txt" 2>&1
"$GW" compare story-fast story-slow --align epoch >"$OUT/compare.txt" 2>&1
"$GW" plot story-fast -o "$OUT/timeline.png" >/dev/null 2>"$OUT/plot_error.txt"
"$GW" plot story-fast story-slow --kind compare --align epoch -o "$OUT/compare.png" >/dev/null 2>&1 ||
  "$GW" plot story-fast story-slow --kind compare -o "$OUT/compare.png" >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt"
python3 scripts/gpu-verify/check_story.py "$OUT" | tee "$OUT/check.txt"
tar czf "$OUT/story.tgz" -C "$OUT" --exclude story.tgz .
