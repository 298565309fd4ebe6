#!/usr/bin/env bash
# Runs on the GPU machine: the Python client's training scripts and callbacks,
# each under annotation_sink.py (the receiving side of `gpuwatch record`)
# while nvidia-smi samples the GPU every 200 ms. Needs no gpuwatch build.
# SECONDS_EACH (default 30) sets each script's length. Results go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-/tmp/gpuwatch-pyclient}
mkdir -p "$OUT"
S=${SECONDS_EACH:-30}
export PYTHONUNBUFFERED=1
here=scripts/gpu-verify

sampled() {  # NAME COMMAND...: runs COMMAND under the sink with nvidia-smi sampling
  local name=$1; shift
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$OUT/$name.smi.csv" &
  local smi=$!
  python3 $here/annotation_sink.py "$OUT/$name.annotations.jsonl" -- "$@" > "$OUT/$name.log" 2>&1
  echo "### $name: exit $?"
  kill "$smi"; wait "$smi" 2>/dev/null
  tail -n 4 "$OUT/$name.log"
  python3 - "$OUT/$name.smi.csv" "$OUT/$name.annotations.jsonl" <<'PY'
import collections, json, sys
rows = [tuple(float(v) for v in line.split(",")) for line in open(sys.argv[1]) if line.strip()]
busy = rows[25:]  # past start-up (5 s)
if busy:
    print(f"gpu util mean {sum(r[0] for r in busy) / len(busy):.1f} % over {len(busy)} samples; "
          f"memory used {rows[0][1]:.0f} -> {max(r[1] for r in rows):.0f} MiB")
kinds = collections.Counter(json.loads(line)["message"]["kind"] for line in open(sys.argv[2]))
print("annotations:", dict(kinds))
PY
}

python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
sampled fast python3 $here/train_cnn.py --mode fast --seconds "$S"
sampled starved python3 $here/train_cnn.py --mode starved --seconds "$S"
sampled leak python3 $here/train_leak.py --seconds "$S"
sampled callbacks python3 $here/callbacks_smoke.py
echo "### CPU smoke"
CUDA_VISIBLE_DEVICES= python3 $here/train_cnn.py --mode starved --seconds 4 || echo "starved on CPU failed"
CUDA_VISIBLE_DEVICES= python3 $here/train_cnn.py --mode fast --seconds 4 || echo "fast on CPU failed"
CUDA_VISIBLE_DEVICES= python3 $here/train_leak.py --seconds 3 || echo "leak on CPU failed"
