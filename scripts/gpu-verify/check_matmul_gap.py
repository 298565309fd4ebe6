#!/usr/bin/env python3
"""Checks a gpuwatch recording of matmul_gap.py against what the workload did.

Usage: check_matmul_gap.py PHASES.jsonl SAMPLES.jsonl REPORT.json
  PHASES.jsonl   the workload's stdout
  SAMPLES.jsonl  `gpuwatch export RUN --format jsonl`
  REPORT.json    `gpuwatch report RUN --format json`
Prints what it measured and exits non-zero if an expectation fails.
"""
import json
import sys

# NVML's utilization covers the last 1/6 s to 1 s, so samples within a second
# of a phase change may still see the previous phase.
EDGE_S = 1.0


def load_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def main():
    phases = {p["phase"]: p for p in load_lines(sys.argv[1])}
    samples = [s for s in load_lines(sys.argv[2]) if s["type"] == "device" and s["gpu"] == 0]
    with open(sys.argv[3]) as f:
        report = json.load(f)
    failures = []

    def mean_util(phase):
        p = phases[phase]
        lo, hi = (p["start"] + EDGE_S) * 1e9, (p["end"] - EDGE_S) * 1e9
        vals = [s["gpu_util_percent"] for s in samples if lo <= s["wall_ns"] <= hi and "gpu_util_percent" in s]
        return sum(vals) / len(vals), len(vals)

    for phase, want in (("compute1", "high"), ("idle", "low"), ("compute2", "high")):
        util, n = mean_util(phase)
        ok = util >= 90 if want == "high" else util <= 5
        print(f"{phase:9s} mean utilization {util:6.2f} % over {n} samples (expected {want}) {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(phase)

    first_mem = next(s["mem_used_bytes"] for s in samples if "mem_used_bytes" in s)
    peak_mem = max(s.get("mem_used_bytes", 0) for s in samples)
    setup = phases["setup"]
    rise_gib = (peak_mem - first_mem) / 2**30
    held_gib = setup["held_bytes"] / 2**30
    reserved_gib = setup["reserved_bytes"] / 2**30
    print(f"memory used: first sample {first_mem / 2**30:.2f} GiB, peak {peak_mem / 2**30:.2f} GiB, "
          f"rise {rise_gib:.2f} GiB; held {held_gib:.2f} GiB, torch reserved {reserved_gib:.2f} GiB "
          f"(the rest of the rise is the CUDA context and cuBLAS workspace)")
    if not (held_gib <= rise_gib <= held_gib + 2.0):
        failures.append("memory rise")

    for d in report["devices"]:
        e = d["energy"]
        if e["counter_joules"] is None or e["integrated_counter_span_joules"] is None:
            print(f"GPU {d['gpu']}: no energy counter")
            failures.append("energy counter")
            continue
        diff = (e["integrated_counter_span_joules"] - e["counter_joules"]) / e["counter_joules"] * 100
        print(f"GPU {d['gpu']}: energy counter {e['counter_joules']:.1f} J, integrated power over the same "
              f"span {e['integrated_counter_span_joules']:.1f} J ({diff:+.2f} %), whole run {e['integrated_joules']:.1f} J")
        if abs(diff) > 5:
            failures.append("energy agreement")

    tflops = [phases[p]["tflops"] for p in ("compute1", "compute2")]
    print(f"workload: {tflops[0]:.0f} and {tflops[1]:.0f} TFLOP/s bf16 in the compute phases")
    print("RESULT:", "all expectations met" if not failures else "FAILED: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
