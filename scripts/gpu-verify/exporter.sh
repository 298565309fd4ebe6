#!/usr/bin/env bash
# Issue 12: `gpuwatch exporter` beside real GPUs. Scrapes /metrics (native
# names and --dcgm-compat) idle and under a bf16 matmul loop, compares the
# values with nvidia-smi's, times 1,000 scrapes, and measures the exporter's
# CPU and RSS over 60 s next to an `nvidia-smi -l 1` loop.
source "$(dirname "$0")/common.sh"
set -u
port=9411
compat_port=9412
"$GW" exporter --listen "127.0.0.1:$port" > "$OUT/exporter.log" 2>&1 &
native=$!
"$GW" exporter --listen "127.0.0.1:$compat_port" --dcgm-compat > "$OUT/exporter_compat.log" 2>&1 &
compat=$!
sleep 3

scrape() { python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())" "$1"; }
smi() { nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm --format=csv,noheader,nounits; }

echo "== idle ==" > "$OUT/compare.txt"
scrape "http://127.0.0.1:$port/metrics" > "$OUT/metrics_idle.txt"
scrape "http://127.0.0.1:$compat_port/metrics" > "$OUT/metrics_compat_idle.txt"
smi >> "$OUT/compare.txt"

echo "== under a bf16 matmul loop on GPU 0 ==" >> "$OUT/compare.txt"
python3 - > "$OUT/load.log" 2>&1 <<'EOF' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 25
while time.time() < end:
    for _ in range(20):
        a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
EOF
load=$!
sleep 12
scrape "http://127.0.0.1:$port/metrics" > "$OUT/metrics_load.txt"
scrape "http://127.0.0.1:$compat_port/metrics" > "$OUT/metrics_compat_load.txt"
smi >> "$OUT/compare.txt"
wait "$load"

echo "== 1,000 scrapes ==" > "$OUT/latency.txt"
python3 - "$port" >> "$OUT/latency.txt" <<'EOF'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/metrics"
ms = []
for _ in range(1000):
    t = time.perf_counter()
    urllib.request.urlopen(url, timeout=5).read()
    ms.append((time.perf_counter() - t) * 1e3)
ms.sort()
print(f"p50 {ms[500]:.2f} ms  p99 {ms[990]:.2f} ms  max {ms[-1]:.2f} ms")
EOF

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
nvidia-smi -l 1 > /dev/null 2>&1 &
smi_loop=$!
sleep 2
a=$(cpu_ticks "$native"); s=$(cpu_ticks "$smi_loop")
sleep 60
b=$(cpu_ticks "$native"); t=$(cpu_ticks "$smi_loop")
hz=$(getconf CLK_TCK)
{
  echo "== 60 s, 1 s interval, no scrapes =="
  echo "exporter CPU: $(( (b - a) * 1000 / hz )) ms in 60 s, RSS $(rss_kb "$native") kB"
  echo "nvidia-smi -l 1 CPU: $(( (t - s) * 1000 / hz )) ms in 60 s, RSS $(rss_kb "$smi_loop") kB"
  nvidia-smi -L
} >> "$OUT/latency.txt"
kill "$smi_loop" 2>/dev/null
kill -TERM "$native" "$compat"
wait "$native"; echo "native exit $?" >> "$OUT/latency.txt"
wait "$compat"; echo "compat exit $?" >> "$OUT/latency.txt"
cat "$OUT/compare.txt" "$OUT/latency.txt"
grep -E "^gpuwatch_gpu_(utilization_ratio|memory_used_bytes|power_watts|temperature_celsius)" "$OUT/metrics_load.txt" | head -20
grep -E "^DCGM_FI_(DEV_GPU_UTIL|DEV_FB_USED|DEV_POWER_USAGE|PROF_PIPE_TENSOR_ACTIVE|PROF_SM_ACTIVE)" "$OUT/metrics_compat_load.txt" | head -20
