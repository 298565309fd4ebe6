#!/usr/bin/env python3
"""One verdict for one real run (issue 23): asks status, report, top --once,
serve's status and report API and the exporter about RUN, then exports it to
jsonl, imports it into a new store and asks status again; prints each
surface's verdict and advisory ids, and exits 1 when any differs.

    check_one_verdict.py GPUWATCH STORE RUN SUMMARY_FILE

SUMMARY_FILE holds what `record` printed (its end summary's verdict line is
compared too)."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ORDER = ["ok", "info", "warning", "critical"]


def ids_of(advisories):
    return [(a["id"], a.get("gpu")) for a in advisories]


def gw_json(gw, store, *args):
    out = subprocess.run([gw, *args, "--store", store], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def served(gw, store, args, path, wait_for=None):
    """GETs path from `gpuwatch <args> --listen 127.0.0.1:0` once it prints its URL."""
    p = subprocess.Popen([gw, *args, "--store", store, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        printed = []
        for line in p.stdout:  # the URL line, after any notes
            printed.append(line)
            found = re.search(r"http://127\.0\.0\.1:\d+", line)
            if found or len(printed) > 20:
                break
        if not found:
            sys.exit(f"gpuwatch {args[0]} printed no URL: {''.join(printed)}")
        base = found.group(0)
        for _ in range(100):
            with urllib.request.urlopen(base + path, timeout=30) as r:
                body = r.read().decode()
            if wait_for is None or wait_for in body:
                return body
            time.sleep(0.2)
        return body
    finally:
        p.terminate()
        p.wait(10)


def exporter_verdict(text):
    found, worst = [], "ok"
    for labels in re.findall(r"^gpuwatch_run_advisory\{([^}]*)\} 1$", text, re.M):
        fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        found.append((fields["id"], int(fields["gpu"]) if fields["gpu"] else None))
        worst = max(worst, fields["severity"], key=ORDER.index)
    return worst, sorted(found, key=str)


def main():
    gw, store, run, summary_file = sys.argv[1:5]
    got = {}
    status = gw_json(gw, store, "status", run, "--format", "json", "--no-remember")
    run_id = status["run"]["id"]
    got["status"] = (status["verdict"], ids_of(status["advisories"]))
    report = gw_json(gw, store, "report", run, "--format", "json")
    got["report"] = (report["verdict"], ids_of(report["advisories"]))
    top = gw_json(gw, store, "top", "--once", "--format", "json", "--run", run)
    got["top --once"] = (top["run"]["verdict"], ids_of(top["run"]["advisories"]))
    for what in ("status", "report"):
        api = json.loads(served(gw, store, ["serve"], f"/api/runs/{run_id}/{what}"))
        got[f"serve {what}"] = (api["verdict"], ids_of(api["advisories"]))
    text = served(gw, store, ["exporter", "--interval", "0.5", "--run", run], "/metrics", "gpuwatch_run_advisories{")
    got["exporter"] = exporter_verdict(text)
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = os.path.join(tmp, "run.jsonl")
        subprocess.run([gw, "export", run, "--format", "jsonl", "-o", jsonl, "--store", store], check=True)
        again = os.path.join(tmp, "again.db")
        subprocess.run([gw, "import", jsonl, "--store", again], check=True, capture_output=True)
        imported = gw_json(gw, again, "status", "last", "--format", "json", "--no-remember")
        got["imported status"] = (imported["verdict"], ids_of(imported["advisories"]))
    summary = open(summary_file).read()
    line = re.search(r"^verdict: (\w+)(?:: (\S+)(?: GPU (\d+))?)?$", summary, re.M)
    verdict, ids = got["status"]
    problems = []
    for surface, (v, i) in got.items():
        print(f"{surface:16s} {v:8s} {i}")
        same = sorted(i, key=str) == sorted(ids, key=str) if surface == "exporter" else i == ids
        if v != verdict or not same:
            problems.append(surface)
    if line is None:
        problems.append("record's summary has no verdict line")
    else:
        first = (line.group(2), int(line.group(3)) if line.group(3) else None)
        print(f"{'record summary':16s} {line.group(1):8s} first {first}")
        if line.group(1) != verdict or (ids and first != ids[0]):
            problems.append("record summary")
    print("one verdict: " + ("OK" if not problems else "DIFFERS in " + ", ".join(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
