#!/usr/bin/env bash
# Runs on a one-GPU machine: this session's changes to top, sample/export and
# the stored slow interval, against the real driver (issue 10). Expects
# .device/gpuwatch and .device/bin/{tmux,nvtop}; results go to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PATH="$PATH:$PWD/.device/bin" PYTHONUNBUFFERED=1 TERM=xterm-256color
step() { echo; echo "### $*"; }
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE=/dev/shm/gw-fixes.db
S="$WORK/tmux.sock"
screen() { tmux -S "$S" capture-pane -t top -p; }

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader

step "1. top with no locale set (LANG, LC_ALL unset, as in CUDA containers): the first 6 rows"
tmux -S "$S" new-session -d -s top -x 100 -y 30 "env -u LANG -u LC_ALL $GW top --interval 0.5; echo EXIT \$?; sleep 30"
sleep 3; screen | head -6

step "2. + on the real driver: how long until the screen says the new interval"
t0=$(date +%s%N); tmux -S "$S" send-keys -t top +
for i in $(seq 1 50); do screen | grep -q "every 1 s" && break; sleep 0.02; done
echo "shown after $(( ($(date +%s%N) - t0) / 1000000 )) ms (polled every 20 ms)"; sleep 2; screen | head -2

step "3. Ctrl-\\ (SIGQUIT): the terminal given back"
tmux -S "$S" send-keys -t top 'C-\'; sleep 1.5; screen | grep -v '^$' | tail -3
tmux -S "$S" kill-server 2>/dev/null

step "4. an unknown TERM"
script -qec "TERM=bogus $GW top" /dev/null < /dev/null | tail -2; echo

step "5. sample --format jsonl at 0.2 s: every row has a temperature (its own read or carried)"
"$GW" sample --format jsonl --interval 0.2 --count 8 | python3 -c "
import sys, json
for line in sys.stdin:
    r = json.loads(line)
    if r['type'] == 'device':
        print(r['elapsed_s'], 'temp', r.get('temp_gpu_celsius'), 'sm', r.get('sm_clock_mhz'), 'age', r.get('slow_read_age_seconds'), 'carried', r.get('slow_values_carried', False), 'energy' if 'energy_joules' in r else '')"

step "6. record at 0.2 s: the slow interval stored with the run, and export/import round trip"
"$GW" record --interval 0.2 --no-summary --name slowint -- sleep 3 > /dev/null 2>&1
"$GW" report slowint --format json | python3 -c "import sys, json; r = json.load(sys.stdin)['run']; print('interval_s', r['interval_s'], 'slow_interval_s', r['slow_interval_s'])"
"$GW" export slowint --format jsonl > "$WORK/a.jsonl"; "$GW" import "$WORK/a.jsonl"; "$GW" export last --format jsonl > "$WORK/b.jsonl"
diff <(grep device "$WORK/a.jsonl" | sed 's/"wall_ns[^,]*,//') <(grep device "$WORK/b.jsonl" | sed 's/"wall_ns[^,]*,//') > /dev/null && echo "export -> import -> export: device rows identical"
echo "rows with a temperature: $(grep -c temp_gpu_celsius "$WORK/a.jsonl") of $(grep -c '"device"' "$WORK/a.jsonl"); carried: $(grep -c slow_values_carried "$WORK/a.jsonl")"

step "7. resident memory, per mapping: top and nvtop"
python3 scripts/gpu-verify/top_rss.py "$GW" "$PWD/.device/bin/nvtop"

step "8. cost: top at 1 s and 0.1 s, nvtop at the same rates, each alone for ${COST_S:-30} s"
python3 bench/top_cost.py "$GW" --seconds ${COST_S:-30}
