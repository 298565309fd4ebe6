"""One verdict per run (issue 23): record's end summary, status, report, top --once, serve's API
and the exporter give the same verdict and advisory ids for one finished run, judged with the
advisor config it was recorded with, and so does that run exported to jsonl and imported."""
import json
import os
import re
import select
import urllib.request

from harness import QUICK, GpuwatchTestCase

# Two busy GPUs, one at 95 %, one at 40 %, both 80 % full: uneven load (balance.imbalance, a
# warning), nothing about memory.
UNEVEN = QUICK + ";gpu_count=2;gpu0.util=95;gpu1.util=40;gpu0.mem_used_mib=65000;gpu1.mem_used_mib=65000"


def ids_of(advisories):
    return [(a["id"], a["gpu"]) for a in advisories]


class OneVerdict(GpuwatchTestCase):
    def started(self, *args, **env):
        """A server started with `args`, and its base URL once it prints it."""
        p = self.start_gw(*args, "--listen", "127.0.0.1:0", scenario=UNEVEN, **env)
        self.procs.append(p)
        ready, _, _ = select.select([p.stdout], [], [], 10)
        self.assertTrue(ready, "no URL printed within 10 s")
        line = p.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        self.assertIsNotNone(m, line)
        return m.group(1)

    def get(self, url):
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.read().decode()

    def json_of(self, *args, **env):
        r = self.run_gw(*args, scenario=UNEVEN, **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def surfaces(self, run, **env):
        """(verdict, ids) as status, report, top --once, serve's status and report and the exporter
        give them for `run`, none of them told the advisor config."""
        out = {}
        s = self.json_of("status", run, "--format", "json", "--no-remember", **env)
        out["status"] = (s["verdict"], ids_of(s["advisories"]))
        rep = self.json_of("report", run, "--format", "json", **env)
        out["report"] = (rep["verdict"], ids_of(rep["advisories"]))
        top = self.json_of("top", "--once", "--format", "json", "--run", run, **env)
        out["top"] = (top["run"]["verdict"], ids_of(top["run"]["advisories"]))
        base = self.started("serve", **env)
        api = json.loads(self.get(f"{base}/api/runs/{s['run']['id']}/status"))
        out["serve status"] = (api["verdict"], ids_of(api["advisories"]))
        api = json.loads(self.get(f"{base}/api/runs/{s['run']['id']}/report"))
        out["serve report"] = (api["verdict"], ids_of(api["advisories"]))
        base = self.started("exporter", "--interval", "0.2", "--run", run, **env)
        # The run's series come with the first sample the exporter publishes.
        self.wait_for(lambda: "gpuwatch_run_advisories{" in self.get(base + "/metrics"), timeout=20,
                      what="the run's series")
        text = self.get(base + "/metrics")
        found = []
        worst = "ok"
        for labels in re.findall(r"^gpuwatch_run_advisory\{([^}]*)\} 1$", text, re.M):
            fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
            found.append((fields["id"], int(fields["gpu"]) if fields["gpu"] else None))
            order = ["ok", "info", "warning", "critical"]
            worst = max(worst, fields["severity"], key=order.index)
        out["exporter"] = (worst, found)
        return out

    def test_every_surface_gives_the_recorded_runs_verdict_also_after_export_and_import(self):
        conf = self.short_advisor_config()
        r = self.run_gw("record", "--name", "uneven", "--interval", "0.05", "--advise", "--check-interval", "0.5",
                        "--advisor-config", conf, "--", "sleep", "5", scenario=UNEVEN)
        self.assertEqual(r.returncode, 0, r.stderr)
        os.remove(conf)  # later readers must take the config from the run, not from this file
        summary = r.stderr[r.stderr.index("\nRun "):]
        verdict_line = re.search(r"^verdict: (\w+)(?:: (\S+)(?: GPU (\d+))?)?$", summary, re.M)
        self.assertIsNotNone(verdict_line, summary)
        shown = [(i, int(g) if g else None) for i, g in re.findall(r"^\[\w+\] ([\w.]+)(?: GPU (\d+))?: ", summary,
                                                                      re.M)]

        got = self.surfaces("uneven")
        verdict, ids = got["status"]
        self.assertEqual(verdict, "warning", got)
        self.assertIn(("balance.imbalance", None), ids, got)
        for surface, (v, i) in got.items():
            self.assertEqual(v, verdict, f"{surface}: {got}")
            if surface == "exporter":
                self.assertEqual(sorted(i, key=str), sorted(ids, key=str), f"{surface}: {got}")
            else:
                self.assertEqual(i, ids, f"{surface}: {got}")
        # The end summary: the same word, the same first advisory, its lines in the same order.
        self.assertEqual(verdict_line.group(1), verdict, summary)
        first = (verdict_line.group(2), int(verdict_line.group(3)) if verdict_line.group(3) else None)
        self.assertEqual(first, ids[0], summary)
        self.assertEqual(shown, ids[:len(shown)], summary)
        self.assertGreater(len(shown), 0, summary)

        # Exported to jsonl and imported into another store: the same verdict, the same ids.
        export = os.path.join(self.tmp, "uneven.jsonl")
        r = self.run_gw("export", "uneven", "--format", "jsonl", "-o", export)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(export) as f:
            kinds = [json.loads(line).get("kind") for line in f if '"type":"event"' in line]
        self.assertIn("advisor_config", kinds)
        self.assertIn("advisory", kinds)
        other = os.path.join(self.tmp, "other.db")
        r = self.run_gw("import", export, GPUWATCH_STORE=other)
        self.assertEqual(r.returncode, 0, r.stderr)
        again = self.surfaces("last", GPUWATCH_STORE=other)
        for surface, (v, i) in again.items():
            self.assertEqual((v, sorted(i, key=str)), (verdict, sorted(ids, key=str)), f"imported, {surface}: {again}")

    def test_a_given_config_wins_over_the_recorded_one(self):
        conf = self.short_advisor_config()
        r = self.run_gw("record", "--interval", "0.05", "--no-summary", "--advisor-config", conf, "--", "sleep", "3",
                        scenario=UNEVEN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.json_of("status", "last", "--format", "json")["verdict"], "warning")
        # The defaults (warm-up 60 s) judge nothing in a 3 s run.
        defaults = os.path.join(self.tmp, "defaults.conf")
        with open(defaults, "w") as f:
            f.write("# the defaults\n")
        s = self.json_of("status", "last", "--format", "json", "--advisor-config", defaults)
        self.assertEqual((s["verdict"], s["advisories"]), ("ok", []))
        self.assertEqual(self.json_of("report", "last", "--format", "json", "--advisor-config", defaults)["verdict"],
                         "ok")
