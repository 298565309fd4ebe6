#!/usr/bin/env bash
# Issue 12 part 3 on four GPUs: one job "recorded on two nodes" (two recorders,
# GPUs 0-1 and 2-3, each into its own store as a node would, named node-a and
# node-b with record --host) and reported as one with report --job across the
# two stores; serve over the folder of stores. Also: metrics()' energy while
# the run is young, and each process's GPU use in the report.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONPATH="$PWD/python" PYTHONUNBUFFERED=1
W="$OUT/work"; mkdir -p "$W/stores"
step() { echo; echo "### $*"; }
regex='epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)'
train="scripts/gpu-verify/train_replicas.py --optimizer adamw --seconds 25"
step "machine"; date -u; nvidia-smi -L; "$GW" --version

step "1. one job on two 'nodes': node-b's replicas get 8x the batch (slower steps)"
CUDA_VISIBLE_DEVICES=0,1 "$GW" record --job J42 --host node-a --store "$W/stores/node-a.db" --name train \
  --interval 0.5 --no-summary --annotate-regex "$regex" -- python3 $train --batch-size 512 --metrics-every 400 \
  > "$W/node-a.log" 2>&1 &
a=$!
CUDA_VISIBLE_DEVICES=2,3 "$GW" record --job J42 --host node-b --store "$W/stores/node-b.db" --name train \
  --interval 0.5 --no-summary --annotate-regex "$regex" -- python3 $train --batch-size 4096 \
  > "$W/node-b.log" 2>&1 &
b=$!
wait "$a"; echo "node-a record exit $?"; wait "$b"; echo "node-b record exit $?"
"$GW" report --job J42 --store "$W/stores/node-a.db" --store "$W/stores/node-b.db"; echo "report --job exit $?"
"$GW" report --job J42 --store "$W/stores" --format json > "$OUT/job_report.json"; echo "json exit $?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d[k] for k in ('load_balance','straggler') if k in d}); print([(n['host'], n.get('gpu_util_percent_mean'), n.get('steps_per_second')) for n in d.get('nodes', [])])" "$OUT/job_report.json"
"$GW" runs --store "$W/stores"

step "2. metrics() in node-a's run: energy from the start"
grep "^metrics()" "$W/node-a.log" | head -2 | cut -c1-400
grep "^metrics()" "$W/node-a.log" | python3 -c "
import json, sys
rows = [json.loads(l.split(' ', 3)[3]) for l in sys.stdin]
print('gpu_total_energy over the answers:', [round(r.get('gpu_total_energy', -1)) for r in rows])"

step "3. each process's GPU use (node-a's report)"
"$GW" report train --store "$W/stores/node-a.db" | sed -n '/Processes on GPUs/,/^$/p'
"$GW" report train --store "$W/stores/node-a.db" --format json | python3 -c "import json,sys; print([(p['gpu'], p['pid'], p['name'], p['mean_gpu_percent'], p['max_gpu_percent']) for p in json.load(sys.stdin)['processes']])"

step "4. serve over the folder of stores"
"$GW" serve --listen 127.0.0.1:9441 --store "$W/stores" --link Grafana=http://grafana.example:3000/d/gpuwatch > "$W/serve.log" 2>&1 &
s=$!; sleep 2
python3 - <<'PY'
import json, urllib.request
get = lambda p: json.load(urllib.request.urlopen("http://127.0.0.1:9441" + p, timeout=30))
runs = get("/api/runs")["runs"]
print("runs:", [(r["name"], r["host"], r.get("job", {}) and r["job"].get("id")) for r in runs])
print("info:", get("/api/info"))
for r in runs:
    h = get(f"/api/runs/{r['id']}/host?points=10")
    print(r["host"], "host metrics:", [m["metric"] for m in h["metrics"]])
PY
kill "$s"; wait "$s"; echo "serve exit $?"
