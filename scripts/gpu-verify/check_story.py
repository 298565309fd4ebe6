#!/usr/bin/env python3
"""Checks what story.sh captured on a real GPU (issue 26): the live stream carried every
panel's data (GPU metrics including temperature, host samples, training annotations and
progress), top showed the run's steps, the finished runs' reports have their epochs and
training, the slow-loader run is judged input-bound while the fast one is not, compare aligned
by epoch, and the plots were drawn. Prints one line per check; exits 1 when any fails."""
import json
import os
import sys

OUT = sys.argv[1]
failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    if not ok:
        failures.append(name)


def read(name):
    path = os.path.join(OUT, name)
    return open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""


def live_events():
    events, kind = [], None
    for line in read("live_stream.txt").splitlines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind == "samples":
            events.append(json.loads(line[6:]))
    return events


def check_live():
    events = live_events()
    check("live stream sent samples events", len(events) >= 10, f"{len(events)} events in 15 s")
    temps = [v for e in events for d in e.get("devices", []) for v in d["values"].get("temp_gpu_celsius", [])
             if v is not None]
    check("live temperature keeps coming", len(temps) >= 10, f"{len(temps)} readings")
    host = sum(len(e.get("host", {}).get("t", [])) for e in events)
    check("live host samples", host >= 10, f"{host} ticks")
    kinds = {ev["kind"] for e in events for ev in e.get("events", [])}
    check("live annotations (log)", "log" in kinds, ", ".join(sorted(kinds)))
    progress = [e["progress"] for e in events if e.get("progress")]
    check("live progress has a step", any(p.get("step") for p in progress), str(progress[-1:] or ""))


def check_reports():
    fast = json.loads(read("report_fast.json") or "{}")
    training = fast.get("training") or {}
    epochs = training.get("epochs") or len(fast.get("epochs") or [])
    check("report: six epochs", epochs >= 6, f"{epochs} epochs")
    scalars = {s["name"] for s in training.get("scalars", [])}
    check("report: loss, lr and val_loss logged", {"loss", "lr", "val_loss"} <= scalars, ", ".join(sorted(scalars)))
    text = read("report_fast.txt")
    check("report text hides job_gpus", "job_gpus" not in text)
    slow = read("report_slow.txt")
    check("slow loader judged input-bound", "input" in slow.lower(), first_line_with(slow, "verdict"))
    check("fast run not judged input-bound", "input_bound" not in read("report_fast.json"))
    compare = read("compare.txt")
    check("compare ran", bool(compare) and "error" not in compare.lower()[:200], compare.splitlines()[0] if compare else "")


def first_line_with(text, word):
    return next((line.strip() for line in text.splitlines() if word in line.lower()), "")


def check_terminal_and_plots():
    top = read("top_160.txt")
    check("top shows the run's steps/s", "steps/s" in top)
    if "cairo" in read("plot_error.txt").lower():
        print("skip plots: this machine has no cairo (drawn from the returned store elsewhere)")
        return
    for picture in ("timeline.png", "compare.png"):
        path = os.path.join(OUT, picture)
        size = os.path.getsize(path) if os.path.exists(path) else 0
        check(f"{picture} drawn", size > 10_000, f"{size} bytes")


check_live()
check_reports()
check_terminal_and_plots()
print(f"{len(failures)} failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
