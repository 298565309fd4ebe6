#!/usr/bin/env bash
# Runs on the GPU machine: annotations, the Python client, record --advise,
# --on-underuse kill and status on real PyTorch training (issue 4).
# The advisor's windows are shortened (warm-up 20 s, window 30 s, checks
# every 5 s) so that the whole check fits the device time; the rules and
# thresholds are the defaults otherwise.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE="$WORK/runs.db" XDG_STATE_HOME="$WORK/state"
CONF="$WORK/advisor.conf"
printf 'warmup_s = 20\nwindow_s = 30\n' > "$CONF"
ADVISE=(--advise --check-interval 5 --advisor-config "$CONF" --interval 0.1)

step "starved CNN (num_workers=0, 4 ms sleep per item): --advise and --on-underuse kill --after 20"
"$GW" record "${ADVISE[@]}" --name starved --on-underuse kill --after 20 -- \
  python3 scripts/gpu-verify/train_cnn.py --mode starved --seconds 120
echo "exit status: $? (75 = stopped for underuse)"

step "fast CNN (batches on the GPU): --advise, --annotate-regex on its printed lines, status while it runs"
( sleep 40; echo "--- status while recording:"; "$GW" status --advisor-config "$CONF"
  "$GW" status --advisor-config "$CONF" --format json > "$WORK/status_live.json" ) &
"$GW" record "${ADVISE[@]}" --name fast --annotate-regex 'loss (?<printed_loss>[0-9.]+)' -- \
  python3 scripts/gpu-verify/train_cnn.py --mode fast --seconds 55
echo "exit status: $?"
wait

step "leaking script (keeps 64 MiB GPU tensors in a list every 0.5 s, epochs every 5 s): --advise"
"$GW" record "${ADVISE[@]}" --name leak -- \
  python3 scripts/gpu-verify/train_leak.py --seconds 55 --leak-mib 64
echo "exit status: $?"

step "status of the finished runs"
for r in starved fast leak; do "$GW" status "$r" --advisor-config "$CONF" --no-remember; echo; done
for r in starved fast leak; do "$GW" status "$r" --advisor-config "$CONF" --no-remember --format json > "$WORK/status_$r.json"; done
step "report of the fast run: training section (client loss beside the regex's printed_loss, allocator vs driver)"
"$GW" report fast | sed -n '/Phases/,/^Host/p'
"$GW" report starved --format json > "$WORK/report_starved.json"
"$GW" report leak --format json > "$WORK/report_leak.json"
step "compare fast leak --align epoch"; "$GW" compare fast leak --align epoch | head -20
"$GW" runs
tar -czf "$OUT/issue4.tar.gz" -C "$WORK" . && rm -rf "$WORK"
