#!/usr/bin/env python3
"""Checks what gpuwatch made of the step-time messages gpuwatch.loader() sent
(data_wait_s, step_time_s, timed_steps), from the finished run's
`report --format json` and `status --format json`:

    check_data_wait.py REPORT.json STATUS.json starved|fast

starved: the run's data wait share (report: training.step_timing) at least
50 %, and util.input_bound first in status's advisories, citing the share as
evidence (data_wait_percent). fast: a share of at most 10 % and no
util.input_bound. Prints what it read as one JSON line; exits 1 when a check
fails.
"""
import json
import sys

BOUNDS = {"starved": (50.0, 100.0), "fast": (0.0, 10.0)}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in BOUNDS:
        sys.exit("usage: check_data_wait.py REPORT.json STATUS.json starved|fast")
    with open(sys.argv[1]) as f:
        report = json.load(f)
    with open(sys.argv[2]) as f:
        status = json.load(f)
    mode = sys.argv[3]
    timing = report["training"].get("step_timing") or {}
    share = timing.get("data_wait_percent")
    advisories = status.get("advisories", [])
    input_bound = [a for a in advisories if a["id"] == "util.input_bound"]
    cited = [e["value"] for a in input_bound for e in a["evidence"] if e["name"] == "data_wait_percent"]
    low, high = BOUNDS[mode]
    problems = []
    if share is None or not low <= share <= high:
        problems.append(f"data wait {share} % outside [{low}, {high}]")
    if mode == "starved":
        if not advisories or advisories[0]["id"] != "util.input_bound":
            problems.append("util.input_bound is not first")
        if not cited:
            problems.append("util.input_bound does not cite data_wait_percent")
    elif input_bound:
        problems.append("a loader that keeps up is called input-bound")
    print(json.dumps({"schema_version": 1, "mode": mode, "step_timing": timing,
                      "advisories": [a["id"] for a in advisories], "cited_data_wait_percent": cited,
                      "verdict": status.get("verdict"), "problems": problems, "ok": not problems}))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
