#!/usr/bin/env bash
# Runs on the GPU machine: every check of docs/verified.md in one go.
# Expects a gpuwatch binary built elsewhere in .device/ (with .device/lib/
# holding shared libraries that machine may lack) and writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/runs.db"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
step "gpuwatch --version"; "$GW" --version
step "gpuwatch devices"; "$GW" devices
"$GW" devices --json > "$OUT/devices.json"
step "gpuwatch sample --count 5 --interval 0.2"; "$GW" sample --count 5 --interval 0.2
step "gpuwatch sample --count 2 --format jsonl"; "$GW" sample --count 2 --interval 0.5 --format jsonl | head -c 1500; echo

GIB=${GIB:-8}
step "gpuwatch record around matmul_gap.py (${GIB} GiB held, 10 s compute, 5 s idle, 10 s compute)"
"$GW" record --interval 0.1 --name matmul-gap --output-dir "$OUT/seed" -- \
  python3 scripts/gpu-verify/matmul_gap.py --gib "$GIB" > "$OUT/phases.jsonl"
echo "exit status: $?"
cat "$OUT/phases.jsonl"
"$GW" export matmul-gap --format jsonl > "$OUT/samples.jsonl"
"$GW" report matmul-gap --format json > "$OUT/report.json"
step "check"; python3 scripts/gpu-verify/check_matmul_gap.py "$OUT/phases.jsonl" "$OUT/samples.jsonl" "$OUT/report.json"

step "exit codes and signals on the real machine"
"$GW" record --no-summary -- python3 -c "import torch; torch.ones(1, device='cuda'); raise SystemExit(7)"; echo "exit status: $? (want 7)"
"$GW" record --no-summary -- sh -c 'kill -TERM $$'; echo "exit status: $? (want 143)"
"$GW" runs

step "sampler cost: gpuwatch record --interval 0.1 beside nvidia-smi -lms 100"
python3 bench/sampler_cost.py real --bin "$GW" --duration "${COST_S:-30}" --json-out "$OUT/cost.json"
