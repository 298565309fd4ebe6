#!/usr/bin/env bash
# Issue 27 item 2 on a real GPU: two training processes, each moved into a
# cgroup made here, one laid out as Slurm's cgroup v2 plugin lays out a job
# step (system.slice/slurmstepd.scope/job_4242/step_0/...), one as Docker's
# systemd driver lays out a container (system.slice/docker-<64 hex>.scope).
# gpuwatch's top (JSON), report (JSON and text) and exporter must name each
# one's owner; check_attribution.py asserts it. Exit 77 where this machine
# gives no writable cgroup v2 tree.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
set -u
cg=/sys/fs/cgroup
container=$(echo gpuwatch-verify | sha256sum | cut -c1-64)   # 64 hex digits, as Docker's ids
job_cg=$cg/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0
docker_cg=$cg/system.slice/docker-$container.scope
if [ ! -e "$cg/cgroup.controllers" ] || ! mkdir -p "$job_cg" "$docker_cg" 2>"$OUT/cgroup_error.txt"; then
  echo "no writable cgroup v2 tree at $cg: $(cat "$OUT/cgroup_error.txt" 2>/dev/null)"
  exit 77
fi
train='import torch, time
x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + float(__import__("sys").argv[1])
while time.time() < end:
    for _ in range(20): y = x @ x
    torch.cuda.synchronize()'
# Each moves itself into its cgroup before it touches the GPU.
sh -c "echo \$\$ > $job_cg/cgroup.procs && exec python3 -c '$train' 45" &
job_pid=$!
sh -c "echo \$\$ > $docker_cg/cgroup.procs && exec python3 -c '$train' 45" &
docker_pid=$!
echo "job pid $job_pid: $(cat /proc/$job_pid/cgroup)"
echo "container pid $docker_pid: $(cat /proc/$docker_pid/cgroup)"
export GPUWATCH_STORE=$OUT/runs.db
"$GW" record --name attribution --interval 0.5 -- sleep 25 >"$OUT/record.txt" 2>&1 &
rec=$!
"$GW" exporter --listen 127.0.0.1:9499 --processes >"$OUT/exporter_log.txt" 2>&1 &
exporter=$!
sleep 15
"$GW" top --once --format json >"$OUT/top.json" 2>"$OUT/top_err.txt"
"$GW" top --once --width 160 >"$OUT/top.txt" 2>&1
"$GW" top --once --width 160 --group-by owner >"$OUT/top_owners.txt" 2>&1
python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:9499/metrics").read().decode())' \
  >"$OUT/metrics.txt" 2>&1
wait "$rec"
kill "$exporter" 2>/dev/null
"$GW" report last --format json >"$OUT/report.json" 2>"$OUT/report_err.txt"
"$GW" report last >"$OUT/report.txt" 2>&1
kill "$job_pid" "$docker_pid" 2>/dev/null
wait
python3 scripts/gpu-verify/check_attribution.py "$OUT" 4242 0 "$container"
