#!/usr/bin/env bash
# Issues 12 and 13 on a real GPU: a 2 x 2 matrix (optimizer x batch size) of a
# real PyTorch training; then one training recorded while `exporter
# --processes` and `serve` run beside it: the exporter's run and process
# series and serve's API (runs, run, series, live stream, report) are saved
# next to nvidia-smi's view of the same moment.
source "$(dirname "$0")/common.sh"
set -u
export GPUWATCH_STORE="$OUT/runs.db"
train="scripts/gpu-verify/train_replicas.py --steps-per-epoch 50"
regex='epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)'

echo "== matrix ==" > "$OUT/matrix.log"
"$GW" matrix --param opt=adamw,sgd --param bs=256,2048 --output-dir "$OUT/matrix" --interval 0.2 \
  -- python3 $train --optimizer {opt} --batch-size {bs} --seconds 15 >> "$OUT/matrix.log" 2>&1
echo "matrix exit $?" >> "$OUT/matrix.log"
"$GW" matrix status "$OUT/matrix" >> "$OUT/matrix.log" 2>&1

get() { python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())" "$1"; }
"$GW" record --name live-train --interval 0.2 --annotate-regex "$regex" \
  -- python3 $train --optimizer adamw --batch-size 1024 --seconds 40 > "$OUT/record.log" 2>&1 &
rec=$!
sleep 4
"$GW" exporter --listen 127.0.0.1:9413 --processes > "$OUT/exporter.log" 2>&1 &
exp=$!
"$GW" serve --listen 127.0.0.1:9414 > "$OUT/serve.log" 2>&1 &
srv=$!
sleep 12
get http://127.0.0.1:9413/metrics > "$OUT/metrics_during_run.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > "$OUT/smi_apps.txt"
nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw,temperature.gpu --format=csv > "$OUT/smi_gpu.txt"
get http://127.0.0.1:9414/api/runs > "$OUT/api_runs.json"
get http://127.0.0.1:9414/api/runs/live-train > "$OUT/api_run.json"
get "http://127.0.0.1:9414/api/runs/live-train/series?metric=gpu_util_percent&points=40" > "$OUT/api_series.json"
python3 - > "$OUT/api_live.txt" 2>&1 <<'PY'
import time, urllib.request
start = time.monotonic()
with urllib.request.urlopen("http://127.0.0.1:9414/api/live?run=live-train", timeout=30) as r:
    while time.monotonic() - start < 6:
        line = r.readline().decode()
        if not line:
            break
        print(f"{time.monotonic() - start:6.2f} {line[:300].rstrip()}")
PY
wait "$rec"
echo "record exit $?" >> "$OUT/record.log"
get http://127.0.0.1:9414/api/runs/live-train/report > "$OUT/api_report.json"
get http://127.0.0.1:9413/metrics > "$OUT/metrics_after_run.txt"
kill "$exp" "$srv"
wait "$exp" "$srv"
"$GW" report live-train > "$OUT/report.txt" 2>&1
echo done > "$OUT/done"
