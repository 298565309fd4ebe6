#!/usr/bin/env bash
# Issues 10 and 12 on a machine of several GPUs (4 H100 here): the exporter's
# cost over every GPU beside `nvidia-smi -l 1` (CPU, RSS, and where the RSS
# goes, per mapping), its scrape latency at 100 scrapes/s; then two trainings
# recorded at once on GPUs 1 and 2 while `serve --metrics` and `top` run:
# /metrics beside nvidia-smi, the run page's APIs (host series, the memory
# grid's series, epoch marks for compare by epoch), top's screens in tmux.
# Expects .device/gpuwatch (and .device/bin/tmux with its libraries in
# .device/lib); results in $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PATH="$PATH:$PWD/.device/bin" PYTHONUNBUFFERED=1 LANG=C.UTF-8 TERM=xterm-256color
step() { echo; echo "### $*"; }
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE=/dev/shm/gw-fleet.db XDG_STATE_HOME="$WORK/state"
get() { python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())" "$1"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
mem() { grep -E "VmHWM|VmRSS|RssAnon|RssFile" "/proc/$1/status" | tr -s ' \t' ' ' | tr '\n' ' '; echo; }
by_mapping() {
  awk '/^[0-9a-f]+-[0-9a-f]+ /{name=($6==""?"[anon]":$6)} /^Rss:/{rss[name]+=$2}
       END{for(n in rss) if (rss[n]>=100) printf "%8d KiB  %s\n", rss[n], n}' "/proc/$1/smaps" | sort -rn | head -14
}

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc
"$GW" --version; command -v tmux || true

step "1. exporter --interval 1 over every GPU, 60 s unscraped, beside nvidia-smi -l 1"
"$GW" exporter --listen 127.0.0.1:9421 > "$WORK/exporter.log" 2>&1 &
exp=$!
nvidia-smi -l 1 > /dev/null 2>&1 &
smi=$!
sleep 3
hz=$(getconf CLK_TCK)
a=$(cpu_ticks "$exp"); s=$(cpu_ticks "$smi")
sleep 60
b=$(cpu_ticks "$exp"); t=$(cpu_ticks "$smi")
echo "exporter: $(( (b - a) * 1000 / hz )) ms CPU in 60 s; $(mem "$exp")"
echo "nvidia-smi -l 1: $(( (t - s) * 1000 / hz )) ms CPU in 60 s; $(mem "$smi")"
echo "-- exporter, Rss per mapping:"; by_mapping "$exp"
echo "-- nvidia-smi, Rss per mapping:"; by_mapping "$smi"
kill "$smi"

step "2. 100 scrapes/s for 20 s"
a=$(cpu_ticks "$exp")
python3 - <<'PY'
import http.client, time
ms, t_end, nxt = [], time.monotonic() + 20, time.monotonic()
while time.monotonic() < t_end:
    t = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", 9421, timeout=5)
    c.request("GET", "/metrics"); body = c.getresponse().read(); c.close()
    ms.append((time.perf_counter() - t) * 1e3)
    nxt += 0.01
    time.sleep(max(0, nxt - time.monotonic()))
ms.sort()
print(f"{len(ms)} scrapes of {len(body)} bytes: p50 {ms[len(ms)//2]:.2f} ms p99 {ms[int(len(ms)*0.99)]:.2f} ms max {ms[-1]:.2f} ms")
PY
b=$(cpu_ticks "$exp")
echo "exporter CPU while scraped: $(( (b - a) * 1000 / hz )) ms in ~20 s"
kill -TERM "$exp"; wait "$exp"; echo "exporter exit $?"

step "3. two trainings recorded at once (GPU 1 adamw, GPU 2 sgd) with serve --metrics and top beside them"
regex='epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)'
train="scripts/gpu-verify/train_replicas.py --steps-per-epoch 50"
CUDA_VISIBLE_DEVICES=1 "$GW" record --name fleet-adamw --interval 0.2 --no-summary --annotate-regex "$regex" \
  -- python3 $train --optimizer adamw --batch-size 1024 --seconds 35 > "$WORK/rec_a.log" 2>&1 &
ra=$!
CUDA_VISIBLE_DEVICES=2 "$GW" record --name fleet-sgd --interval 0.2 --no-summary --annotate-regex "$regex" \
  -- python3 $train --optimizer sgd --batch-size 1024 --seconds 35 > "$WORK/rec_b.log" 2>&1 &
rb=$!
sleep 5
"$GW" serve --listen 127.0.0.1:9422 --metrics --interval 1 > "$WORK/serve.log" 2>&1 &
srv=$!
S="$WORK/tmux.sock"
tmux -S "$S" new-session -d -s top -x 200 -y 50 "$GW top --interval 0.5"
sleep 15
get http://127.0.0.1:9422/metrics > "$OUT/serve_metrics.txt"
nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw,temperature.gpu --format=csv > "$OUT/smi_at_scrape.txt"
tmux -S "$S" capture-pane -t top -p > "$OUT/top_200x50.txt"
tmux -S "$S" resize-window -t top -x 120 -y 40; sleep 2
tmux -S "$S" capture-pane -t top -p > "$OUT/top_120x40.txt"
tmux -S "$S" resize-window -t top -x 80 -y 24; sleep 2
tmux -S "$S" capture-pane -t top -p > "$OUT/top_80x24.txt"
"$GW" top --once --format json > "$OUT/top_once.json"
tmux -S "$S" send-keys -t top q; sleep 1; tmux -S "$S" kill-server 2>/dev/null
wait "$ra"; echo "record adamw exit $?"; wait "$rb"; echo "record sgd exit $?"
get "http://127.0.0.1:9422/api/runs/fleet-adamw" > "$WORK/run_a.json"
get "http://127.0.0.1:9422/api/runs/fleet-sgd" > "$WORK/run_b.json"
get "http://127.0.0.1:9422/api/runs/fleet-adamw/host?points=20" > "$OUT/api_host.json"
get "http://127.0.0.1:9422/api/runs/fleet-adamw/series?metric=mem_used_bytes&points=20" > "$WORK/series_mem.json"
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
for name in ("run_a", "run_b"):
    r = json.load(open(f"{w}/{name}.json"))
    epochs = [e for e in r["events"] if e["kind"] == "epoch"]
    print(name, r["run"]["name"], "GPUs", [d["gpu"] for d in r["devices"]], "epoch marks", len(epochs),
          "first at", epochs[0]["t"] if epochs else None, "duration", r["run"]["duration_s"])
h = json.load(open(f"{w}/../api_host.json"))
for m in h["metrics"]:
    vals = [v for v in m["v"] if v is not None]
    print("host", m["metric"], len(vals), "values, max", max(vals) if vals else None)
s = json.load(open(f"{w}/series_mem.json"))
for d in s["devices"]:
    vals = [v for v in d["v"] if v is not None]
    print("mem series GPU", d["gpu"], "max GiB", round(max(vals) / 2**30, 2) if vals else None)
PY
kill -TERM "$srv"; wait "$srv"; echo "serve exit $?"
echo "-- /metrics (serve) beside nvidia-smi:"
grep -E '^gpuwatch_gpu_(utilization_ratio|memory_used_bytes|power_watts)\{' "$OUT/serve_metrics.txt" | sed -E 's/,uuid="[^"]*"//; s/,pci_bus_id="[^"]*"//; s/,name="[^"]*"//'
grep -E '^gpuwatch_run_(info|epoch|step)' "$OUT/serve_metrics.txt" | head -8
cat "$OUT/smi_at_scrape.txt"
echo "-- top 200x50:"; cat "$OUT/top_200x50.txt"
echo "-- top 80x24:"; cat "$OUT/top_80x24.txt"
