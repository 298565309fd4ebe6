#!/usr/bin/env bash
# Runs on a Hopper machine: the advisor's GPM rules against known loads
# (issue 11). Each load runs 20 s under `record --advise` with a 5 s warm-up
# and a 10 s window; then the advisories the run stored.
#   Expected: util.launch_bound for back-to-back 64x64 matmuls only; none of
#   it for an 8192^2 bf16 matmul or a device-to-device memory copy;
#   util.tensor_idle for an fp32 matmul without TF32 (and not with it).
# Then two processes sharing the GPU, each with its own GPU use in top.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/advisor.db" PYTHONUNBUFFERED=1
CONF="$OUT/advisor.conf"
printf 'warmup_s = 5\nwindow_s = 10\n' > "$CONF"
step() { echo; echo "### $*"; }
load() {  # name, python body run for 20 s
  step "$1"
  "$GW" record --interval 0.2 --advise --check-interval 2 --advisor-config "$CONF" --no-summary --name "$1" -- \
    python3 -c "
import time, torch
$2
t = time.time()
while time.time() - t < 20: step()
torch.cuda.synchronize()" 2>&1 | grep -E "^\[|advis" | head -8
  "$GW" report "$1" --format json | python3 -c "
import json, sys
r = json.load(sys.stdin)
d = r['devices'][0]['metrics']
print('means: util', round(d['gpu_util_percent']['mean'], 1), 'sm_active', round(d.get('sm_active_percent', {}).get('mean', -1), 2),
      'tensor', round(d.get('tensor_active_percent', {}).get('mean', -1), 2), 'fp32', round(d.get('fp32_active_percent', {}).get('mean', -1), 2))
ids = sorted({' '.join(e['message'].split()[:2]) for e in r['events'] if e['kind'] == 'advisory'})
print('advisories stored:', ids)"
}
load launch-bound 'a = torch.randn(64, 64, device="cuda")
def step(): a @ a'
load bf16-matmul 'a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
def step(): a @ a'
load memcopy 'a = torch.empty(1 << 30, device="cuda"); b = torch.empty_like(a)
def step(): b.copy_(a)'
load fp32-matmul 'a = torch.randn(8192, 8192, device="cuda"); torch.backends.cuda.matmul.allow_tf32 = False
def step(): a @ a'
load tf32-matmul 'a = torch.randn(8192, 8192, device="cuda"); torch.backends.cuda.matmul.allow_tf32 = True
def step(): a @ a'

step "two processes sharing the GPU: top --once, 5 s in"
for n in 4096 1024; do
  python3 -c "
import time, torch
a = torch.randn($n, $n, device='cuda')
t = time.time()
while time.time() - t < 10: a @ a
torch.cuda.synchronize()" &
done
sleep 5; "$GW" top --once --width 120 | grep -E "PID|python" ; wait
