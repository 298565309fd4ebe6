#!/usr/bin/env python3
"""Reads the step-time messages (data_wait_s, step_time_s, timed_steps) that
gpuwatch.loader() sent, from `gpuwatch report --format json`'s events, and
checks the data wait share against the run's mode:

    check_data_wait.py REPORT.json starved|fast

starved: the share must be at least 50 %; fast: at most 10 %. Prints the
share, the steps and the messages it found as one JSON line; exits 1 when the
share is out of bounds or no message was stored.
"""
import json
import sys

BOUNDS = {"starved": (0.50, 1.0), "fast": (0.0, 0.10)}


def step_time_events(report):
    """(data_wait_s, step_time_s, timed_steps) of each stored step-time log event."""
    found = []
    for event in report.get("events", []):
        if event.get("kind") != "log":
            continue
        values = dict(pair.split("=", 1) for pair in event.get("message", "").split() if "=" in pair)
        if {"data_wait_s", "step_time_s", "timed_steps"} <= values.keys():
            found.append((float(values["data_wait_s"]), float(values["step_time_s"]),
                          int(float(values["timed_steps"]))))
    return found


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in BOUNDS:
        sys.exit("usage: check_data_wait.py REPORT.json starved|fast")
    with open(sys.argv[1]) as f:
        report = json.load(f)
    found = step_time_events(report)
    waited = sum(w for w, _, _ in found)
    stepped = sum(s for _, s, _ in found)
    share = waited / stepped if stepped else None
    low, high = BOUNDS[sys.argv[2]]
    ok = share is not None and low <= share <= high
    print(json.dumps({"schema_version": 1, "mode": sys.argv[2], "messages": len(found),
                      "timed_steps": sum(n for _, _, n in found), "data_wait_s": round(waited, 3),
                      "step_time_s": round(stepped, 3), "wait_share": None if share is None else round(share, 4),
                      "expected": [low, high], "ok": ok}))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
