#!/usr/bin/env bash
# Issue 13 on four GPUs: a 2 x 2 matrix (optimizer x per-GPU batch size) of a
# real PyTorch training on every GPU of its cell, twice each, two cells at a
# time with two GPUs each; its summary, its pictures (graphs/ and each cell's
# _plot.png, packed into matrix.tar.gz). Then gpuwatch.metrics() inside a
# recorded two-GPU training, and that run exported for TensorBoard and read
# back by the TFRecord rules of tests/e2e/test_export_tensorboard.py.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE=/dev/shm/gw-matrix.db PYTHONPATH="$PWD/python" PYTHONUNBUFFERED=1
WORK="$OUT/work"; mkdir -p "$WORK"
step() { echo; echo "### $*"; }
# The pictures need cairo and a font: carried in .device/cairo and .device/fonts
# for a machine without them.
export FONTCONFIG_FILE="$PWD/.device/fonts/fonts.conf"
if ! ldconfig -p | grep -q "libcairo.so.2 "; then
  echo "no system cairo: the carried one"
  export LD_LIBRARY_PATH="$PWD/.device/cairo:$LD_LIBRARY_PATH"
fi
step "machine"; date -u; nvidia-smi -L; "$GW" --version

step "1. matrix: opt x bs, --repeat 2 --parallel 2 --gpus-per-cell 2"
M="$WORK/m"
"$GW" matrix --param opt=adamw,sgd --param bs=512,4096 --repeat 2 --parallel 2 --gpus-per-cell 2 \
  --interval 0.2 --output-dir "$M" -- \
  python3 scripts/gpu-verify/train_replicas.py --optimizer {opt} --batch-size {bs} --seconds 20
echo "matrix exit $?"
"$GW" matrix status "$M"
cat "$M/summary.txt"
ls -la "$M/graphs"
for c in "$M"/*/cell.json; do python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(c['name'], c['state'], c['gpus'], c['duration_s'])" "$c"; done
grep -h "CUDA_VISIBLE_DEVICES\|Job GPUs" "$M"/*/output.log | sort | uniq -c | head
(cd "$WORK" && tar czf "$OUT/matrix.tar.gz" m/summary.txt m/summary.json m/graphs m/*/*_plot.png m/*/cell.json)

step "2. gpuwatch.metrics() every 300 steps in a recorded training on GPUs 0 and 1"
CUDA_VISIBLE_DEVICES=0,1 "$GW" record --name tracked --interval 0.5 --no-summary -- \
  python3 scripts/gpu-verify/train_replicas.py --optimizer adamw --batch-size 2048 --seconds 15 --metrics-every 300 \
  > "$WORK/tracked.log" 2>&1
echo "record exit $?"
grep "^metrics()" "$WORK/tracked.log" | head -2; grep "^metrics()" "$WORK/tracked.log" | tail -1
grep "^metrics()" "$WORK/tracked.log" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END{print "metrics() ms: n", NR, "median", a[int(NR/2)+1], "max", a[NR]}'
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader

step "3. export tracked --format tensorboard, read back"
"$GW" export tracked --format tensorboard -o "$WORK/tb"; echo "export exit $?"
python3 - "$WORK/tb" <<'PY'
import glob, os, sys
sys.path.insert(0, "tests/e2e")
from test_export_tensorboard import scalars  # checks every record's CRCs as it reads
files = glob.glob(os.path.join(sys.argv[1], "**", "events.out.tfevents.*"), recursive=True)
points = [p for path in files for p in scalars(open(path, "rb").read())[0]]
tags = sorted({t for t, _, _, _ in points})
print(len(files), "event files,", len(points), "scalars,", len(tags), "tags:", tags[:10], "...")
for tag in ("gpu0/mem_used_bytes", "gpu1/gpu_util_percent", "gpu0/power_watts"):
    v = [x for t, _, _, x in points if t == tag]
    if v:
        print(f"{tag}: n {len(v)} first {v[0]:.4g} max {max(v):.4g}")
PY
