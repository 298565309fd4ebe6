#!/usr/bin/env python3
"""Asserts the verdicts of single_scenarios.sh from the finished runs'
`status --format json` and `report --format json`: launch_bound leads with
util.launch_bound on GPU 0 and no util.collective_wait (one GPU waits for
nobody); tensor_idle has util.tensor_idle on GPU 0; report and status give
the same verdict and advisories. Usage: check_single.py OUT"""
import json
import sys


def keyed(advisories):
    return [(a["id"], a.get("device"), a["severity"]) for a in advisories]


def main():
    out = sys.argv[1]
    failed = False
    for scenario, must_lead in (("launch_bound", "util.launch_bound"), ("tensor_idle", None)):
        status = json.load(open(f"{out}/{scenario}.status.json"))
        report = json.load(open(f"{out}/{scenario}.report.json"))
        ids = [a["id"] for a in status["advisories"]]
        print(f"{scenario}: status {status['verdict']} {keyed(status['advisories'])}; "
              f"report {report.get('verdict')}")
        problems = []
        if must_lead and (not ids or ids[0] != must_lead):
            problems.append(f"{must_lead} does not lead")
        if scenario == "launch_bound" and "util.collective_wait" in ids:
            problems.append("a single GPU called a collective wait")
        if scenario == "tensor_idle" and "util.tensor_idle" not in ids:
            problems.append("no util.tensor_idle")
        if keyed(report.get("advisories", [])) != keyed(status["advisories"]) or report.get("verdict") != status["verdict"]:
            problems.append("report and status disagree")
        print(f"{scenario}: " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
