#!/usr/bin/env python3
"""Asserts the verdicts of single_scenarios.sh from the finished runs'
`status --format json` and `report --format json`: launch_bound has
util.launch_bound on GPU 0, no util.input_bound (the busy core launches the
kernels) and no util.collective_wait (one GPU waits for nobody), and its first
advisory says to give the kernels more work (fuse_kernels or raise_batch);
tensor_idle has util.tensor_idle on GPU 0; report and status give
the same verdict and advisories. Usage: check_single.py OUT"""
import json
import sys


def keyed(advisories):
    return [(a["id"], a.get("gpu"), a["severity"]) for a in advisories]


def main():
    out = sys.argv[1]
    failed = False
    for scenario in ("launch_bound", "tensor_idle"):
        status = json.load(open(f"{out}/{scenario}.status.json"))
        report = json.load(open(f"{out}/{scenario}.report.json"))
        ids = [a["id"] for a in status["advisories"]]
        print(f"{scenario}: status {status['verdict']} {keyed(status['advisories'])}; "
              f"report {report.get('verdict')}")
        problems = []
        if scenario == "launch_bound":
            if "util.launch_bound" not in ids:
                problems.append("no util.launch_bound")
            if "util.input_bound" in ids:
                problems.append("a core busy launching kernels called input-bound")
            if "util.collective_wait" in ids:
                problems.append("a single GPU called a collective wait")
            if not ids or status["advisories"][0]["action"] not in ("fuse_kernels", "raise_batch"):
                problems.append("the first advisory does not give the kernels more work")
        if scenario == "tensor_idle" and "util.tensor_idle" not in ids:
            problems.append("no util.tensor_idle")
        if keyed(report.get("advisories", [])) != keyed(status["advisories"]) or report.get("verdict") != status["verdict"]:
            problems.append("report and status disagree")
        print(f"{scenario}: " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
