#!/usr/bin/env python3
"""Puts gpuwatch-bench-torch's results beside the Python reference's, test by
test: throughput of each, their ratio, and peak GPU memory.

    compare_with_worker.py WORKER.jsonl REFERENCE

WORKER.jsonl is the worker's stdout; REFERENCE is gpu_loadtest_reference.py's
--output JSON or its --jsonl stdout. Prints a markdown table and a summary
line; exits 1 only when a file cannot be read.
"""
import json
import math
import sys


def results(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    try:
        document = json.loads(text)
        if isinstance(document, dict) and "results" in document:
            return {r["test_name"]: r for r in document["results"]}
    except json.JSONDecodeError:
        pass  # JSON lines
    lines = (json.loads(line) for line in text.splitlines() if line.strip())
    return {line["test_name"]: line for line in lines if line.get("type") == "result"}


def number(value, digits=1):
    return "-" if value is None else f"{value:,.{digits}f}"


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        worker, reference = results(argv[1]), results(argv[2])
    except (OSError, ValueError, KeyError) as error:
        print(f"compare_with_worker: {error}", file=sys.stderr)
        return 1
    print("| test | worker samples/s | reference samples/s | worker / reference | worker peak MiB | reference peak MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = []
    for name, ours in worker.items():
        theirs = reference.get(name, {})
        a, b = ours.get("throughput_samples_per_second"), theirs.get("throughput_samples_per_second")
        ratio = a / b if a and b else None
        if ratio:
            ratios.append(ratio)
        failed = " (failed)" if ours.get("success") is False or theirs.get("success") is False else ""
        print(f"| {name}{failed} | {number(a)} | {number(b)} | {number(ratio, 3)} | "
              f"{number(ours.get('peak_gpu_memory_mb'))} | {number(theirs.get('peak_gpu_memory_mb'))} |")
    if ratios:
        geometric_mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        at_least = sum(r >= 1 for r in ratios)
        print(f"\nworker at least as fast in {at_least} of {len(ratios)} tests; "
              f"geometric mean worker / reference = {geometric_mean:.3f}; lowest {min(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
