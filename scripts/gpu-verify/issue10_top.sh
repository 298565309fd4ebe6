#!/usr/bin/env bash
# Runs on a one-GPU machine: `gpuwatch top` against the real driver (issue 10).
# Expects .device/gpuwatch built elsewhere (and in .device/bin tmux when the
# machine has none, and nvtop: github.com/Syllo/nvtop built with NVIDIA support
# only); results go to $OUT. COST_ONLY=1 runs step 3 alone.
#   1. top in tmux (120x40) while a training script runs under `record`: the
#      screen captured, keys tried (sort, focus, help)
#   2. top --once --format json beside nvidia-smi's values at the same moment
#   3. the cost of top at 1 s and 0.1 s beside nvtop's, each alone
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PATH="$PATH:$PWD/.device/bin" PYTHONUNBUFFERED=1 LANG=C.UTF-8 TERM=xterm-256color
step() { echo; echo "### $*"; }
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE=/dev/shm/gw-issue10.db XDG_STATE_HOME="$WORK/state"

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
"$GW" --version; command -v tmux nvtop || true

if [ -z "${COST_ONLY:-}" ]; then
step "1. top in tmux beside a recorded training script (starved CNN: epochs, steps, loss, advisories)"
CONF="$WORK/advisor.conf"; printf 'window_s = 10\nwarmup_s = 5\n' > "$CONF"
"$GW" record --name top-verify --interval 0.5 --no-summary -- \
  python3 scripts/gpu-verify/train_cnn.py --mode starved --seconds 60 > "$WORK/record.log" 2>&1 &
rec=$!
sleep 8
S="$WORK/tmux.sock"
tmux -S "$S" new-session -d -s top -x 120 -y 40 "$GW top --interval 0.5 --advisor-config $CONF"
sleep 25
tmux -S "$S" capture-pane -t top -p > "$OUT/top_120x40.txt"
tmux -S "$S" send-keys -t top s; sleep 1.5
tmux -S "$S" capture-pane -t top -p > "$OUT/top_sorted.txt"
tmux -S "$S" send-keys -t top 0; sleep 1.5
tmux -S "$S" capture-pane -t top -p > "$OUT/top_focus0.txt"
tmux -S "$S" send-keys -t top Escape; tmux -S "$S" resize-window -t top -x 80 -y 24; sleep 2
tmux -S "$S" capture-pane -t top -p > "$OUT/top_80x24.txt"
tmux -S "$S" send-keys -t top q; sleep 1
tmux -S "$S" kill-server 2>/dev/null
cat "$OUT/top_120x40.txt"; echo "--- sorted (s):"; head -3 "$OUT/top_sorted.txt"
echo "--- 80x24:"; cat "$OUT/top_80x24.txt"

step "2. top --once --format json beside nvidia-smi"
"$GW" top --once --format json --advisor-config "$CONF" > "$OUT/top_once.json"; echo "exit $?"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.max.sm,clocks.mem,pcie.link.gen.current,pcie.link.width.current,pstate --format=csv
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
python3 - "$OUT/top_once.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    m = g["metrics"]
    print(g["gpu"], g["name"], g["uuid"], g["pci_bus_id"], "util", m.get("gpu_util_percent"),
          "mem MiB", round(m.get("mem_used_bytes", 0) / 2**20), "/", round(m.get("mem_total_bytes", 0) / 2**20),
          "power", m.get("power_watts"), "/", m.get("power_limit_watts"), "temp", m.get("temp_gpu_celsius"),
          "sm", m.get("sm_clock_mhz"), "/", m.get("sm_clock_max_mhz"), "mem clock", m.get("mem_clock_mhz"),
          "pcie gen", m.get("pcie_link_gen"), "x", m.get("pcie_link_width"), "P", m.get("perf_state"))
r = d["run"] or {}
print("run", r.get("name"), r.get("status"), "age", r.get("age_s"), "verdict", r.get("verdict"),
      "training", r.get("training"), "advisories", [a["id"] for a in r.get("advisories", [])])
for p in d["processes"]:
    print("process", p["pid"], p["user"], "gpu", p["gpu"], "MiB", (p["gpu_memory_bytes"] or 0) // 2**20,
          "cpu", p["cpu_percent"], "rss MiB", (p["rss_bytes"] or 0) // 2**20, p["command"][:60])
PY
wait $rec; echo "record exit $?"; tail -3 "$WORK/record.log"
fi

step "3. cost: top at 1 s and 0.1 s, nvtop at the same rates, each alone for ${COST_S:-30} s"
python3 bench/top_cost.py "$GW" --seconds ${COST_S:-30}
