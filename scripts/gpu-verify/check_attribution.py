"""Asserts that gpuwatch named the owners attribution.sh set up: the Slurm job
step and the container, in top's JSON and text, the report's JSON and text and
the exporter's process series. Usage: check_attribution.py OUT JOB STEP CONTAINER"""
import json
import os
import re
import sys

out, job, step, container = sys.argv[1:5]
slurm_job, short = f"{job}.{step}", container[:12]
failures = []


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def owners(processes):
    return [p.get("attribution") or {} for p in processes]


top = json.load(open(os.path.join(out, "top.json")))
top_owners = owners([p for g in top.get("gpus", []) for p in g.get("processes", [])] + top.get("processes", []))
check(f"top JSON: a process of Slurm job {slurm_job}",
      any(a.get("slurm_job") == slurm_job and a.get("job") == job and a.get("step") == step for a in top_owners))
check(f"top JSON: a process of container {short} (docker)",
      any(a.get("container") == container and a.get("container_runtime") == "docker" for a in top_owners))
groups = {g.get("owner"): g for g in top.get("owners", [])}
check(f"top JSON owners: job {job} (its steps as one) and container {short}",
      groups.get(job, {}).get("kind") == "slurm_job" and groups.get(short, {}).get("kind") == "container")
check("top JSON owners: each group sums its process's GPU memory",
      all((groups.get(k, {}).get("gpu_memory_bytes") or 0) > 0 for k in (job, short)))
owners_text = open(os.path.join(out, "top_owners.txt")).read()
check("top --group-by owner: one row each", re.search(rf"^\s*{re.escape(job)}\s+slurm_job", owners_text, re.M) is not None
      and re.search(rf"^\s*{re.escape(short)}\s+container", owners_text, re.M) is not None)
top_text = open(os.path.join(out, "top.txt")).read()
check("top text: the OWNER column names both", "OWNER" in top_text and slurm_job in top_text and short in top_text)

report = json.load(open(os.path.join(out, "report.json")))
report_owners = owners(report.get("processes", []))
check(f"report JSON: job {slurm_job}", any(a.get("slurm_job") == slurm_job for a in report_owners))
check(f"report JSON: container {short}", any(a.get("container_short") == short for a in report_owners))
report_text = open(os.path.join(out, "report.txt")).read()
check("report text: both owners", slurm_job in report_text and short in report_text)

metrics = open(os.path.join(out, "metrics.txt")).read()
check(f'exporter: a process series with slurm_job="{slurm_job}"',
      re.search(r'^gpuwatch_process_\w+\{[^}]*slurm_job="' + re.escape(slurm_job) + '"', metrics, re.M) is not None)
check(f'exporter: a process series with container="{short}"',
      re.search(r'^gpuwatch_process_\w+\{[^}]*container="' + re.escape(short) + '"', metrics, re.M) is not None)
print("attribution:", "ok" if not failures else f"{len(failures)} check(s) failed")
sys.exit(1 if failures else 0)
