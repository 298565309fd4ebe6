#!/usr/bin/env python3
"""contrib/prometheus/gpuwatch-rules.yml: `promtool check rules`, `promtool test rules` on
tests/prometheus/gpuwatch-rules.test.yml, `promtool check rules` on the Grafana dashboard's queries
(contrib/grafana/gpuwatch.json: that they parse), and what promtool cannot see: that the rules and the
test's input series use the exporter's real names and labels (scrape-*.txt here are real scrapes
of `gpuwatch exporter` on the fake driver; tests/e2e/test_exporter.py keeps them true), that every
alert has a case that fires it and one that must not, and a severity, a summary, a description
and a `for:`. Run by ctest as prometheus.rules; exits 77 (skipped) without promtool or PyYAML."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RULES = os.path.join(ROOT, "contrib", "prometheus", "gpuwatch-rules.yml")
TESTS = os.path.join(HERE, "gpuwatch-rules.test.yml")
DASHBOARD = os.path.join(ROOT, "contrib", "grafana", "gpuwatch.json")
SKIP = 77
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"')
# Labels Prometheus adds to every scraped series.
SCRAPE_LABELS = {"job", "instance"}
# Labels the exporter may give empty, which Prometheus then does not store; and a process's owner
# labels, which the exporter writes only where the process has that owner (scrape-owners.txt).
OWNER_LABELS = ("slurm_job", "container", "pod_uid")
MAY_BE_EMPTY = {("gpuwatch_run_advisory", "gpu")} | {
    (name, label) for name in ("gpuwatch_process_memory_used_bytes", "gpuwatch_process_gpu_utilization_ratio")
    for label in OWNER_LABELS}


def exported_labels():
    """{name: label names} of every sample in the scrape fixtures."""
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "scrape-*.txt"))):
        with open(path) as f:
            for line in f:
                m = SAMPLE.match(line.strip())
                if m:
                    out.setdefault(m.group(1), set()).update(LABEL.findall(m.group(2) or ""))
    return out


def series_labels(selector):
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\}$', selector)
    return (m.group(1), set(LABEL.findall(m.group(2)))) if m else (selector, set())


def check_names(rules, tests, exported):
    errors = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            # Not the stem of a regular expression (`gpuwatch_gpu_.+`).
            for name in set(re.findall(r"\bgpuwatch_[a-z_]+(?![a-z_.(])", rule["expr"])):
                if name not in exported:
                    errors.append(f"{rule.get('alert') or rule['record']}: {name} is not a name the exporter serves")
    for test in tests["tests"]:
        for s in test.get("input_series", []):
            name, labels = series_labels(s["series"])
            if not name.startswith("gpuwatch_"):
                continue
            if name not in exported:
                errors.append(f"{test['name']}: input {name} is not a name the exporter serves")
                continue
            want = exported[name] | SCRAPE_LABELS
            optional = {l for (n, l) in MAY_BE_EMPTY if n == name}
            if not (want - optional <= labels <= want):
                errors.append(f"{test['name']}: input {name} has labels {sorted(labels)}, the exporter's are "
                              f"{sorted(exported[name])} (+ job, instance)")
    return errors


def check_alerts(rules, tests):
    errors = []
    alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"] if "alert" in r}
    fires, quiet = set(), set()
    for test in tests["tests"]:
        for case in test.get("alert_rule_test", []):
            name = case["alertname"]
            (fires if case.get("exp_alerts") else quiet).add(name)
            used = set(re.findall(r"\$labels\.(\w+)", " ".join(alerts.get(name, {}).get("annotations", {}).values())))
            for a in case.get("exp_alerts") or []:
                missing = used - set(a.get("exp_labels", {}))
                if missing:
                    errors.append(f"{name} at {case['eval_time']}: its annotations name {sorted(missing)}, "
                                  "which the alert does not carry")
    for name, rule in alerts.items():
        if name not in fires:
            errors.append(f"{name}: no test case where it fires")
        if name not in quiet:
            errors.append(f"{name}: no test case where it must not fire")
        if rule.get("labels", {}).get("severity") not in ("info", "warning", "critical"):
            errors.append(f"{name}: no severity label (info, warning or critical)")
        if not {"summary", "description"} <= set(rule.get("annotations", {})):
            errors.append(f"{name}: needs a summary and a description annotation")
        if "for" not in rule:
            errors.append(f"{name}: no for: duration")
    unknown = (fires | quiet) - set(alerts)
    errors += [f"a test names {n}, which the rules do not have" for n in sorted(unknown)]
    return errors


def dashboard_rules(path):
    """contrib/grafana/gpuwatch.json's queries as a rule file, for promtool to parse: its variables
    given values. The dashboard's names are checked against a live exporter in tests/e2e/test_exporter.py."""
    import json
    with open(DASHBOARD) as f:
        dash = json.load(f)
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    rules = []
    for i, expr in enumerate(exprs):
        expr = expr.replace("$__rate_interval", "1m").replace("$hostname", ".*").replace("$gpu", ".*")
        rules.append({"record": f"dashboard:query_{i}", "expr": expr})
    with open(path, "w") as f:
        json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)


def promtool(*args):
    r = subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=120)
    sys.stdout.write(r.stdout + r.stderr)
    return r.returncode == 0


def main():
    if shutil.which("promtool") is None:
        print("prometheus.rules: skipped: no promtool (Debian's `prometheus` package; "
              "scripts/install-deps.sh --tests installs it)")
        return SKIP
    try:
        import yaml
    except ImportError:
        print("prometheus.rules: skipped: no PyYAML (Debian's python3-yaml; scripts/install-deps.sh --tests)")
        return SKIP
    ok = promtool("check", "rules", RULES)
    ok = promtool("test", "rules", TESTS) and ok
    with tempfile.TemporaryDirectory() as tmp:
        dashboard = os.path.join(tmp, "dashboard-queries.yml")
        dashboard_rules(dashboard)
        print("The Grafana dashboard's queries:")
        ok = promtool("check", "rules", dashboard) and ok
    with open(RULES) as f:
        rules = yaml.safe_load(f)
    with open(TESTS) as f:
        tests = yaml.safe_load(f)
    exported = exported_labels()
    errors = check_names(rules, tests, exported) + check_alerts(rules, tests)
    for e in errors:
        print("prometheus.rules:", e)
    if not errors:
        print(f"prometheus.rules: {len(exported)} exported names; every alert fires and stays quiet in a test")
    return 0 if ok and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
