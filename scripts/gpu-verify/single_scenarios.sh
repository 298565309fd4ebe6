#!/usr/bin/env bash
# Issue 23's one-GPU scenarios beside the DDP suite: kernels too small to
# fill the GPU (back-to-back 64x64 matmuls: util.launch_bound, and no
# util.collective_wait on a job of one GPU), and FP32 matmuls with TF32 off
# (util.tensor_idle), each under `record --advise` with a 20 s window; then
# what `status` and `report` say of the finished run, checked by
# check_single.py (the same verdict from both). The starved loader is
# data_wait.sh's. Writes to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export GPUWATCH_STORE="$OUT/single.db" PYTHONUNBUFFERED=1
conf="$OUT/single.conf"
printf 'window_s = 20\nwarmup_s = 10\n' > "$conf"
seconds=${SECONDS_PER_RUN:-40}
declare -A loops=(
  [launch_bound]="import time, torch
a = torch.randn(64, 64, device='cuda')
t = time.time()
while time.time() - t < $seconds: b = a @ a
torch.cuda.synchronize()"
  [tensor_idle]="import time, torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(8192, 8192, device='cuda')
t = time.time()
while time.time() - t < $seconds:
    b = a @ a
    torch.cuda.synchronize()")
nvidia-smi -L
for s in launch_bound tensor_idle; do
  "$GW" record --name "$s" --interval 0.2 --advise --advisor-config "$conf" -- python3 -c "${loops[$s]}" \
    > "$OUT/$s.log" 2>&1
  echo "== $s: exit $?"
  "$GW" status "$s" --format json > "$OUT/$s.status.json"
  "$GW" report "$s" --format json > "$OUT/$s.report.json"
  "$GW" status "$s" | sed -n '/verdict/p;/^\[/p'
done
python3 scripts/gpu-verify/check_single.py "$OUT"
