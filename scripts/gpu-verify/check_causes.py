#!/usr/bin/env python3
"""Asserts the root cause comes first in `status --format json` of a starved run (causes.sh): util.input_bound first with action feed_faster, and any batch-size
advisory on the same GPU explained by it."""
import json
import sys


def check(name, advisories):
    assert advisories, f"{name}: no advisories"
    first = advisories[0]
    print(f"{name}: " + "; ".join(f"{a['severity']} {a['id']} GPU {a['gpu']} action={a['action']}"
                                  + (f" explained_by={a['explained_by']['id']}" if a["explained_by"] else "")
                                  for a in advisories))
    assert first["id"] == "util.input_bound", f"{name}: first is {first['id']}"
    assert first["action"] == "feed_faster", first
    for a in advisories:
        if a["id"].startswith("memory.batch_") and a["gpu"] == first["gpu"]:
            assert a["explained_by"] == {"id": "util.input_bound", "gpu": first["gpu"]}, a
            assert a["severity"] == "info", a
            assert a["suggestion"].startswith("Once the input keeps up: "), a


status = json.load(open(sys.argv[1]))
check("status", status["advisories"])
print("causes: OK")
