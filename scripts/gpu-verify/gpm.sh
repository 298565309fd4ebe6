#!/usr/bin/env bash
# Runs on a Hopper (H100/H200) machine: the GPM metrics against the real
# driver. Expects .device/gpuwatch (and .device/lib/) as common.sh says, and
# torch for the load; results go to $OUT.
#   What to look for: `devices` lists sm_active_percent .. nvlink_rx_bytes_per_sec;
#   while the bf16 matmul runs, sm_active_percent and tensor_active_percent
#   near 100, sm_occupancy_percent and dram_bw_util_percent above 0; idle
#   rows at 0 (not absent); no GPM value on the first slow read of `sample`
#   if it comes under 100 ms after start; the report's text has the rows.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/gpm.db" PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }
GPM_KEYS='sm_active_percent sm_occupancy_percent tensor_active_percent dram_bw_util_percent fp64_active_percent fp32_active_percent fp16_active_percent nvlink_tx_bytes_per_sec nvlink_rx_bytes_per_sec'

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,mig.mode.current --format=csv,noheader
step "devices: GPM metrics listed?"; "$GW" devices --json > "$OUT/devices.json"
for k in $GPM_KEYS; do grep -q "\"$k\"" "$OUT/devices.json" && echo "listed: $k" || echo "MISSING: $k"; done

step "record 4 s idle, 8 s bf16 matmul, 4 s idle"
"$GW" record --interval 0.2 --name gpm-check -- python3 -c "
import time, torch
time.sleep(4)
a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16)
t = time.time()
while time.time() - t < 8: b = a @ a
torch.cuda.synchronize(); time.sleep(4)"
echo "exit status: $?"
"$GW" export gpm-check --format jsonl > "$OUT/samples.jsonl"
"$GW" report gpm-check --format json > "$OUT/report.json"
"$GW" report gpm-check > "$OUT/report.txt"; cat "$OUT/report.txt"

step "GPM values per slow read (device 0, time, then each metric)"
python3 - "$OUT/samples.jsonl" $GPM_KEYS <<'EOF'
import json, sys
path, keys = sys.argv[1], sys.argv[2:]
print("elapsed_s gpu_util", " ".join(keys))
for line in open(path):
    s = json.loads(line)
    if s.get("type") != "device" or s.get("gpu") != 0 or s.get("slow_values_carried"):
        continue
    vals = [s.get(k) for k in keys]
    if all(v is None for v in vals):
        continue
    print(f'{s["elapsed_s"]:.2f}', s.get("gpu_util_percent"), " ".join("-" if v is None else f"{v:.4g}" for v in vals))
EOF
step "report JSON: GPM metric summaries"
python3 -c "
import json,sys; r=json.load(open('$OUT/report.json')); s=json.dumps(r)
print([k for k in '$GPM_KEYS'.split() if k in s])"
