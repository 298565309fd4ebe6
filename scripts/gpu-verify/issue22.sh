#!/usr/bin/env bash
# Issue 22 (never harm the job) on a machine with 2+ GPUs. Writes to $OUT.
# 1. The job's processes unseen by the driver (it runs outside the recorder,
#    as in a container): GPU 0 busy with it, GPU 1 a neighbour's light load.
#    `--on-underuse kill` must not stop the recorded command (before: exit 75).
#    Then both GPUs low: it must (exit 75).
# 2. `--annotate-regex` and the recorder SIGKILLed mid-run, 8 times: the
#    command must finish every time (before: 3 of 8, SIGPIPE).
# 3. The README's epoch pattern, now `epoch_end`, on a real training loop:
#    three epochs of about equal length, the first one counted.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/issue22.db"
export PYTHONUNBUFFERED=1
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER
conf="$OUT/short.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
duty=scripts/gpu-verify/duty_cycle.py
nvidia-smi -L

echo "== 1a: job unseen on busy GPU 0, neighbour at 10 % on GPU 1"
python3 $duty --device 0 --duty 0.95 --gib 40 --seconds 75 & job=$!
python3 $duty --device 1 --duty 0.10 --gib 20 --seconds 75 & neighbour=$!
sleep 8
"$GW" record --name unseen --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" \
  --on-underuse kill --after 15 --no-summary -- sleep 55
echo "exit status: $? (expected 0)"
wait $job $neighbour
"$GW" report unseen --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("job_gpus", r["job_gpus"], "util", [(d["gpu"], round(d["metrics"]["gpu_util_percent"]["mean"])) for d in r["devices"]])'

echo "== 1b: both GPUs low, job unseen"
python3 $duty --device 0 --duty 0.05 --gib 4 --seconds 75 & a=$!
python3 $duty --device 1 --duty 0.10 --gib 4 --seconds 75 & b=$!
sleep 8
"$GW" record --name unseen-idle --interval 0.2 --check-interval 2 --advise --advisor-config "$conf" \
  --on-underuse kill --after 15 --no-summary -- sleep 60
echo "exit status: $? (expected 75)"
kill $a $b 2>/dev/null; wait $a $b 2>/dev/null

echo "== 2: recorder SIGKILLed under --annotate-regex, 8 times"
finished=0
for i in 1 2 3 4 5 6 7 8; do
  rm -f "$OUT/done"
  "$GW" record --name regex-kill --interval 0.1 --no-summary --annotate-regex 'step (?P<step>\d+)' -- \
    python3 -c "
import sys, time, torch
x = torch.randn(4096, 4096, device='cuda')
for i in range(60):
    x = x @ x; x /= x.norm(); torch.cuda.synchronize()
    print('step', i); time.sleep(0.05)
open('$OUT/done', 'w').write('ok')
" > "$OUT/regex-kill.out" 2>&1 & rec=$!
  sleep $((1 + i % 3))
  kill -KILL $rec
  for _ in $(seq 1 100); do [ -e "$OUT/done" ] && break; sleep 0.1; done
  [ -e "$OUT/done" ] && finished=$((finished + 1))
  echo "iteration $i: command finished: $([ -e "$OUT/done" ] && echo yes || echo no), last line: $(tail -1 "$OUT/regex-kill.out")"
done
echo "finished $finished of 8 (expected 8)"

echo "== 3: epoch_end on a real training loop"
"$GW" record --name epochs --interval 0.1 --no-summary \
  --annotate-regex '(?i)Epoch (?P<epoch_end>\d+).*loss (?P<loss>[0-9.]+)' -- python3 -c "
import time, torch
m = torch.nn.Linear(4096, 4096).cuda(); opt = torch.optim.SGD(m.parameters(), lr=1e-3)
x = torch.randn(512, 4096, device='cuda')
for epoch in range(1, 4):
    t = time.time()
    while time.time() - t < 4:
        loss = m(x).square().mean(); opt.zero_grad(); loss.backward(); opt.step()
    torch.cuda.synchronize()
    print(f'Epoch {epoch}/3 loss {loss.item():.4f}')
time.sleep(2)  # saving, testing: no epoch's time
"
echo "exit status: $?"
"$GW" report epochs --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("epochs", [(e["label"], round(e["duration_s"], 2)) for e in r["epochs"]], "training.epochs", r["training"]["epochs"])'
