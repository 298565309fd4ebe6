"""gpuwatch serve against a store of runs recorded on the fake driver: the JSON API answers as
docs/serve.md says (the report and compare exactly as the commands print them), series stay
within the points asked for, a live run streams its samples and then its end, the token and the
Host check keep others out, bad targets are refused; and in headless Chromium (when installed)
the runs list, a run's charts, compare and a live run's growing chart. And the limits (issue 22):
headers past 16 KiB are 431 before the token is looked at, a full house gets 503 at once, slow and
silent clients leave it answering, long runs are compared and streamed within a bound; the token
comes from a file or the environment and is never printed."""
import gzip
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from browser import CHROMIUM, console_messages, dump_dom, screenshot
from harness import BIN, QUICK, GpuwatchTestCase, tree
from http_clients import Idlers, flood, raw_request, rss_mib

SCENARIO = f"{QUICK};gpu_count=2;gpu1.util=77"
# A loaded CI machine starts Chromium slowly; the live page also waits for its run's end.
BROWSER_TIMEOUT_S = 90
EPOCH_REGEX = r"epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)"


def training(seconds):
    steps = int(seconds / 0.05)
    return ("import time\n"
            f"for step in range(1, {steps}):\n"
            "    print(f'epoch {1 + step // 10} step {step} loss {1 / step:.4f}', flush=True)\n"
            "    time.sleep(0.05)\n")


def canvases(dom):
    """The attributes of every <canvas> of a DOM dump, as dicts."""
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', tag)) for tag in re.findall(r"<canvas\b[^>]*>", dom)]


class ServeCase(GpuwatchTestCase):
    """Records runs into the test's store and starts `gpuwatch serve` over it."""

    def record(self, name, seconds=1.0):
        r = self.run_gw("record", "--name", name, "--interval", "0.1", "--no-summary", "--annotate-regex",
                        EPOCH_REGEX, "--", "python3", "-c", training(seconds), scenario=SCENARIO)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(self.run_gw("runs", "--format", "json").stdout)["runs"][-1]["id"]

    def start_live_run(self, seconds):
        """A run named "live" recording a training of `seconds`, once the store lists it."""
        rec = self.start_gw("record", "--name", "live", "--interval", "0.1", "--no-summary", "--annotate-regex",
                            EPOCH_REGEX, "--", "python3", "-c", training(seconds), scenario=SCENARIO)
        self.procs.append(rec)
        self.wait_for(lambda: os.path.exists(self.store) and "live" in self.run_gw("runs").stdout,
                      what="the live run")

    def serve(self, *args, **env):
        p = self.start_gw("serve", "--listen", "127.0.0.1:0", *args, scenario=SCENARIO, **env)
        self.procs.append(p)
        ready, _, _ = select.select([p.stdout], [], [], 10)
        self.assertTrue(ready, "no URL printed within 10 s")
        line = p.stdout.readline()
        self.last_line = line
        m = re.search(r"(http://127\.0\.0\.1:\d+)/(\?token=\w+)?", line)
        self.assertIsNotNone(m, line)
        return m.group(1)

    def get(self, url, headers=None):
        """(status, parsed JSON or text) of a GET."""
        req = urllib.request.Request(url, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                body, status, kind = r.read().decode(), r.status, r.headers["Content-Type"]
        except urllib.error.HTTPError as e:
            body, status, kind = e.read().decode(), e.code, e.headers["Content-Type"]
        return status, json.loads(body) if kind == "application/json" else body


class ServeTest(ServeCase):
    def test_api_answers_as_documented(self):
        first = self.record("first")
        second = self.record("second")
        base = self.serve()
        status, runs = self.get(base + "/api/runs")
        self.assertEqual(status, 200)
        self.assertEqual(runs["schema_version"], 2)
        self.assertEqual([r["name"] for r in runs["runs"]], ["second", "first"])  # newest first
        self.assertEqual(runs["runs"][0]["status"], "finished")
        self.assertEqual([g["gpu"] for g in runs["runs"][0]["gpus"]], [0, 1])

        status, run = self.get(f"{base}/api/runs/{first}")
        self.assertEqual(status, 200)
        self.assertEqual(run["run"]["id"], first)
        names = [m["name"] for m in run["metrics"]]
        self.assertIn("gpu_util_percent", names)
        self.assertEqual(run["metrics"][names.index("mem_used_bytes")]["display"]["unit"], "GiB")
        self.assertTrue(any(e["kind"] == "epoch" for e in run["events"]), run["events"])
        self.assertEqual(self.get(f"{base}/api/runs/first")[1]["run"]["id"], first)  # a name works too

        status, series = self.get(f"{base}/api/runs/{first}/series?metric=gpu_util_percent&points=4")
        self.assertEqual(status, 200)
        for d in series["devices"]:
            self.assertLessEqual(len(d["t"]), 2 * 4 + 2)
            self.assertEqual(len(d["t"]), len(d["v"]))
        gpu1 = next(d for d in series["devices"] if d["gpu"] == 1)
        self.assertIn(77, gpu1["v"])
        status, part = self.get(f"{base}/api/runs/{first}/series?metric=power_watts&from=0.5&to=0.8&points=100")
        self.assertEqual(status, 200)
        for d in part["devices"]:
            inside = [t for t in d["t"] if 0.5 <= t <= 0.8]
            self.assertTrue(inside)
            self.assertTrue(all(0.3 <= t <= 1.0 for t in d["t"]), d["t"])  # one sample either side at most
        for bad in ("metric=nope", "metric=gpu_util_percent&points=0", "metric=gpu_util_percent&points=x",
                    "metric=gpu_util_percent&from=2&to=1", "metric=gpu_util_percent&to=1e300",
                    "metric=gpu_util_percent&from=nan", ""):
            status, err = self.get(f"{base}/api/runs/{first}/series?{bad}")
            self.assertEqual(status, 400, bad)
            self.assertIn("error", err)

        status, host = self.get(f"{base}/api/runs/{first}/host?points=3")
        self.assertEqual(status, 200)
        by_name = {m["metric"]: m for m in host["metrics"]}
        self.assertIn("cpu_percent", by_name)
        self.assertIn("tree_rss_bytes", by_name)  # the recorded python's own RSS
        self.assertNotIn("mem_total_bytes", by_name)
        for m in host["metrics"]:
            self.assertEqual(len(m["t"]), len(m["v"]))
            self.assertLessEqual(len(m["t"]), 2 * 3 + 2)
        # Read once a second: a one-second run may have caught the command only as it started.
        self.assertGreater(max(v for v in by_name["tree_rss_bytes"]["v"] if v is not None), 0)
        self.assertEqual(self.get(f"{base}/api/runs/{first}/host?points=0")[0], 400)
        self.assertEqual(self.get(f"{base}/api/runs/{first}/host?from=9&to=1")[0], 400)

        status, report = self.get(f"{base}/api/runs/{first}/report")
        self.assertEqual(status, 200)
        cli = json.loads(self.run_gw("report", first, "--format", "json").stdout)
        self.assertEqual(report, cli)
        status, compared = self.get(f"{base}/api/compare?runs={first},{second}")
        self.assertEqual(status, 200)
        self.assertEqual(compared, json.loads(self.run_gw("compare", first, second, "--format", "json").stdout))
        self.assertEqual(self.get(f"{base}/api/compare?runs={first}")[0], 400)
        for since in ("nan", "1e300", "-1", "x"):
            self.assertEqual(self.get(f"{base}/api/live?run={first}&since={since}")[0], 400, since)
        self.assertEqual(self.get(f"{base}/api/runs/000000000000")[0], 404)
        self.assertEqual(self.get(f"{base}/api/nothing")[0], 404)

    def test_the_reports_processes_name_their_owner(self):
        # Issue 27 item 2: each process on the GPUs with its owner (tests/fixtures/procfs/cgroup_owners: a
        # Slurm v1 step, a Guaranteed pod's containerd container, a systemd unit, a process of none), as
        # `report` gives it. The run page has no process table: the API's report is where it shows.
        MiB = 1024 ** 2
        scenario = (f"{SCENARIO};gpu0.processes=5101:{1024 * MiB},5107:{MiB},5108:{2 * MiB};"
                    f"gpu1.processes=5104:{2048 * MiB}")
        r = self.run_gw("record", "--name", "owners", "--interval", "0.1", "--no-summary", "--", "sleep", "1",
                        scenario=scenario, GPUWATCH_PROCFS_ROOT=tree("procfs/cgroup_owners"))
        self.assertEqual(r.returncode, 0, r.stderr)
        base = self.serve()
        status, report = self.get(f"{base}/api/runs/owners/report")
        self.assertEqual(status, 200, report)
        self.assertEqual(report["processes"], self.report("owners")["processes"])
        owners = {p["pid"]: p["attribution"] for p in report["processes"]}
        self.assertEqual(set(owners), {5101, 5104, 5107, 5108})
        self.assertEqual((owners[5101]["slurm_job"], owners[5101]["job"], owners[5101]["step"]), ("1234.0", "1234", "0"))
        pod = owners[5104]
        self.assertEqual((pod["container_short"], pod["container_runtime"], pod["pod_uid"], pod["qos"]),
                         ("9b2c4e6f8a0b", "containerd", "11111111-2222-3333-4444-555555555555", "Guaranteed"))
        self.assertEqual(owners[5107]["unit"], "app-blender-42.scope")
        self.assertEqual(set(owners[5108].values()), {None})  # no cgroup file: no owner, every key null

    def test_status_gives_the_advisories_of_the_latest_window(self):
        # GPU 0 underused with little memory: the advisor's batch advice, over a 2 s window.
        r = self.run_gw("record", "--name", "small", "--interval", "0.1", "--no-summary", "--", "sleep", "3",
                        scenario=f"{SCENARIO};gpu0.util=20;gpu0.mem_used_mib=2048")
        self.assertEqual(r.returncode, 0, r.stderr)
        base = self.serve("--advisor-config", self.short_advisor_config())
        status, doc = self.get(base + "/api/runs/small/status")
        self.assertEqual(status, 200, doc)
        self.assertEqual(doc["schema_version"], 2)
        self.assertEqual(doc["window_s"], 2)
        ids = {(a["id"], a["gpu"]) for a in doc["advisories"]}
        self.assertIn(("memory.batch_too_small", 0), ids)
        self.assertEqual(self.get(base + "/api/runs/nothing/status")[0], 404)

    def test_safety(self):
        self.record("only")
        base = self.serve()
        status, page = self.get(base + "/")
        self.assertEqual(status, 200)
        self.assertIn("/static/app.js", page)
        # The chart library is compiled in too (no CDN): uPlot, as vendored in web/vendor/uplot/.
        vendored = os.path.join(os.path.dirname(__file__), "../../web/vendor/uplot/uPlot.iife.min.js")
        with open(vendored, encoding="utf-8") as f:
            self.assertEqual(self.get(base + "/static/uPlot.iife.min.js"), (200, f.read()))
        self.assertIn("/static/uPlot.min.css", page)
        self.assertNotIn("//cdn", page)
        for target in ("/static/..%2F..%2Fetc%2Fpasswd", "/static/%2e%2e/x", "/api/runs/%00", "/static/app.js%00"):
            status, _ = self.get(base + target)
            self.assertIn(status, (400, 404), target)
        # A page of another site whose name points here (DNS rebinding) sends its own Host.
        self.assertEqual(self.get(base + "/api/runs", {"Host": "evil.example:9410"})[0], 403)
        self.assertEqual(self.get(base + "/api/runs", {"Host": "localhost:9410"})[0], 200)
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=10)
        conn.request("POST", "/api/runs", body="{}")
        self.assertNotEqual(conn.getresponse().status, 200)
        conn.close()
        with urllib.request.urlopen(base + "/", timeout=10) as r:
            self.assertIn("frame-ancestors 'none'", r.headers["Content-Security-Policy"])
            self.assertEqual(r.headers["X-Content-Type-Options"], "nosniff")

        token_base = self.serve("--token", "s3cret-token")
        self.assertEqual(self.get(token_base + "/api/runs")[0], 401)
        self.assertEqual(self.get(token_base + "/api/runs?token=wrong")[0], 401)
        self.assertEqual(self.get(token_base + "/api/runs?token=s3cret-token")[0], 200)
        self.assertEqual(self.get(token_base + "/api/runs", {"Authorization": "Bearer s3cret-token"})[0], 200)
        self.assertEqual(self.get(token_base + "/")[0], 200)  # the page holds no data

    def test_slow_and_silent_clients_leave_it_answering_others(self):
        # Forty clients that send half a request and then a byte a second (slowloris) and three
        # hundred that send nothing: more than the 256 connections it is told to keep; the
        # oldest silent one makes room for each newcomer, and no client holds anything another
        # needs.
        self.record("only")
        base = self.serve("--max-connections", "256")
        with Idlers(base, "/api/runs", silent=300, trickling=40):
            for _ in range(3):
                time.sleep(1)
                started = time.monotonic()
                status, _ = self.get(base + "/api/runs")
                self.assertEqual(status, 200)
                self.assertLess(time.monotonic() - started, 2)

    def test_bad_flags(self):
        r = self.run_gw("serve", "--listen", "nowhere")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--listen", r.stderr)
        r = self.run_gw("serve", "--interval", "2")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--interval requires --metrics", r.stderr)
        for bad in ("Evil=javascript:alert(1)", "NoUrl", "=http://x", "Blank=http://a b"):
            r = self.run_gw("serve", "--link", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--link", r.stderr)

    def test_info_names_the_links_and_metrics(self):
        base = self.serve("--link", "Grafana=http://grafana.example:3000/d/gpuwatch?orgId=1", "--link",
                          "W&B=https://wandb.ai/team/project")
        status, info = self.get(base + "/api/info")
        self.assertEqual(status, 200)
        self.assertEqual(info["schema_version"], 1)
        self.assertFalse(info["metrics"])
        self.assertEqual(info["links"], [{"name": "Grafana", "url": "http://grafana.example:3000/d/gpuwatch?orgId=1"},
                                         {"name": "W&B", "url": "https://wandb.ai/team/project"}])

    def test_metrics_beside_the_dashboard(self):
        base = self.serve()
        status, body = self.get(base + "/metrics")
        self.assertEqual(status, 404)
        self.assertIn("--metrics", body["error"])

        self.start_live_run(60)
        p = self.start_gw("serve", "--listen", "127.0.0.1:0", "--token", "t0ken", "--metrics", "--interval", "0.2",
                          scenario=SCENARIO)
        self.procs.append(p)
        ready, _, _ = select.select([p.stdout], [], [], 10)
        self.assertTrue(ready, "no URL printed within 10 s")
        base = re.search(r"http://127\.0\.0\.1:\d+", p.stdout.readline()).group(0)
        self.assertEqual(self.get(base + "/metrics")[0], 401)
        self.assertTrue(self.get(base + "/api/info?token=t0ken")[1]["metrics"])
        # As Prometheus sends it (authorization: {credentials: ...} in the scrape config).
        bearer = {"Authorization": "Bearer t0ken"}

        def scraped():
            status, body = self.get(base + "/metrics", bearer)
            self.assertEqual(status, 200)
            return body if 'name="live"' in body else None
        self.wait_for(scraped, timeout=20, what="the live run in /metrics")
        body = scraped()
        self.assertRegex(body, r'gpuwatch_gpu_utilization_ratio\{gpu="1",[^}]*\} 0\.77\b')
        self.assertRegex(body, r'gpuwatch_run_info\{[^}]*name="live"[^}]*\} 1')
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=30), 0)

    def test_a_live_run_streams_its_samples_then_its_end(self):
        self.start_live_run(4)
        base = self.serve()
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=20)
        conn.request("GET", "/api/live?run=live")
        reply = conn.getresponse()
        self.assertEqual(reply.status, 200)
        self.assertEqual(reply.getheader("Content-Type"), "text/event-stream")
        events = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = reply.readline().decode()
            if not line:
                break
            if line.startswith("event: "):
                events.append([line[7:].strip(), None])
            elif line.startswith("data: ") and events:
                events[-1][1] = json.loads(line[6:])
        conn.close()
        kinds = [k for k, _ in events]
        self.assertIn("samples", kinds)
        self.assertEqual(kinds[-1], "end", kinds)
        self.assertEqual(events[-1][1]["status"], "finished")
        samples = [d for k, d in events if k == "samples"]
        times = [t for s in samples for d in s["devices"] if d["gpu"] == 0 for t in d["t"]]
        self.assertEqual(times, sorted(times))
        self.assertEqual(len(times), len(set(times)))  # nothing sent twice
        self.assertIn(77, [v for s in samples for d in s["devices"] if d["gpu"] == 1
                           for v in d["values"]["gpu_util_percent"]])
        self.assertTrue(any(s["progress"]["epoch"] for s in samples))


MAKE_RUN_STORE = os.path.join(os.path.dirname(os.path.abspath(BIN)), "make_run_store")


class ServeLimitsTest(ServeCase):
    def test_the_token_from_a_file_or_the_environment_is_never_printed(self):
        self.record("only")
        path = os.path.join(self.tmp, "token")
        with open(path, "w") as f:
            f.write("  s3cret-file-token \n")
        base = self.serve("--token-file", path)
        self.assertNotIn("s3cret", self.last_line)
        self.assertIn("--token-file", self.last_line)
        self.assertEqual(self.get(base + "/api/runs")[0], 401)
        self.assertEqual(self.get(base + "/api/runs?token=s3cret-file-token")[0], 200)
        with open(f"/proc/{self.procs[-1].pid}/cmdline", "rb") as f:
            self.assertNotIn(b"s3cret", f.read())

        base = self.serve(GPUWATCH_TOKEN="s3cret-env-token")
        self.assertNotIn("s3cret", self.last_line)
        self.assertIn("GPUWATCH_TOKEN", self.last_line)
        self.assertEqual(self.get(base + "/api/runs")[0], 401)
        self.assertEqual(self.get(base + "/api/runs", {"Authorization": "Bearer s3cret-env-token"})[0], 200)
        # A generated token is the one printed: the only way to learn it.
        p = self.start_gw("serve", "--listen", "0.0.0.0:0", scenario=SCENARIO)
        self.procs.append(p)
        ready, _, _ = select.select([p.stdout], [], [], 10)
        self.assertTrue(ready)
        self.assertRegex(p.stdout.readline(), r"\?token=[0-9a-f]{32}")

        empty = os.path.join(self.tmp, "empty")
        open(empty, "w").close()
        for args, words in ((["--token-file", os.path.join(self.tmp, "none")], "No such file"),
                            (["--token-file", empty], "no token"),
                            (["--token", "a", "--token-file", path], "excludes")):
            r = self.run_gw("serve", "--listen", "127.0.0.1:0", *args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(words, r.stderr)
        r = self.run_gw("serve", "--listen", "127.0.0.1:0", GPUWATCH_TOKEN="not a token")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("GPUWATCH_TOKEN", r.stderr)
        self.assertNotIn("not a token", r.stderr)

    def test_headers_past_the_limit_are_431_before_the_token_and_a_flood_costs_nothing(self):
        base = self.serve("--token", "t0ken")
        pid = self.procs[-1].pid
        big = b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n"
        self.assertEqual(raw_request(base, big)[0], 431)
        many = b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(
            b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n"
        status, answer = raw_request(base, many)
        self.assertEqual(status, 431)
        self.assertIn(b'"schema_version": 1', answer)
        self.assertEqual(raw_request(base, b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")[0], 401)
        before = rss_mib(pid)
        answers = flood(base, "/api/runs", megabytes=40)
        self.assertTrue(all(a in (None, 431) for a in answers), answers)
        self.assertLess(rss_mib(pid) - before, 20)
        self.assertEqual(self.get(base + "/api/runs?token=t0ken")[0], 200)

    def test_a_full_house_gets_503_at_once(self):
        self.start_live_run(30)
        base = self.serve("--max-connections", "3")
        streams = []
        for _ in range(3):
            conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=10)
            conn.request("GET", "/api/live?run=live")
            self.assertEqual(conn.getresponse().status, 200)
            streams.append(conn)
        started = time.monotonic()
        status, body = self.get(base + "/api/runs")
        self.assertEqual(status, 503)
        self.assertEqual(body["schema_version"], 1)
        self.assertIn("too many connections", body["error"])
        self.assertLess(time.monotonic() - started, 2)
        for conn in streams:
            conn.close()
        self.wait_for(lambda: self.get(base + "/api/runs")[0] == 200, timeout=20, what="room after the streams")

    @unittest.skipUnless(os.access(MAKE_RUN_STORE, os.X_OK), "make_run_store is not built")
    def test_long_runs_are_compared_and_streamed_within_bounds(self):
        # Two runs of 576,000 device-samples (8 GPUs, 30 min at 40 Hz): together past what
        # compare reads whole.
        for name in ("long-a", "long-b"):
            subprocess.run([MAKE_RUN_STORE, "--out", self.store, "--hours", "0.5", "--hz", "40", "--name", name],
                           check=True, capture_output=True, timeout=300)
        base = self.serve()
        pid = self.procs[-1].pid
        status, compared = self.get(f"{base}/api/compare?runs=long-a,long-b")
        self.assertEqual(status, 200, compared)
        self.assertEqual(compared["schema_version"], 1)
        self.assertTrue(any("per-minute rollups" in n for n in compared["notes"]), compared["notes"])
        with open(f"/proc/{pid}/status") as f:
            peak_mib = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) / 1024
        self.assertLess(peak_mib, 150)  # whole, the two runs took about 400 MB
        # Asked again, gzipped: the kept answer, the same bytes once inflated.
        req = urllib.request.Request(f"{base}/api/compare?runs=long-a,long-b", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=30) as r:
            self.assertEqual(r.headers["Content-Encoding"], "gzip")
            self.assertEqual(json.loads(gzip.decompress(r.read())), compared)

        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
        conn.request("GET", "/api/live?run=long-a&since=0")
        reply = conn.getresponse()
        self.assertEqual(reply.status, 200)
        kinds, ticks = [], []
        while True:
            line = reply.readline().decode()
            if not line:
                break
            if line.startswith("event: "):
                kinds.append(line[7:].strip())
            elif line.startswith("data: ") and kinds[-1] == "samples":
                gpu0 = next(d for d in json.loads(line[6:])["devices"] if d["gpu"] == 0)
                self.assertLessEqual(len(gpu0["t"]), 2000)  # a page at most per event
                ticks += gpu0["t"]
            if kinds and kinds[-1] == "end":
                break
        conn.close()
        self.assertEqual(kinds[-1], "end")
        self.assertEqual(len(ticks), 30 * 60 * 40)
        self.assertEqual(ticks, sorted(set(ticks)))


@unittest.skipUnless(CHROMIUM, "chromium is not installed")
class ServePagesTest(ServeCase):
    def test_pages_in_a_browser(self):
        first = self.record("first")
        second = self.record("second")
        base = self.serve("--link", "Grafana=http://grafana.example:3000/d/gpuwatch")
        dom = dump_dom(base + "/#/", timeout_s=BROWSER_TIMEOUT_S)
        self.assertIn(f'data-run-id="{first}"', dom)
        self.assertIn('href="http://grafana.example:3000/d/gpuwatch" target="_blank" rel="noopener noreferrer">Grafana</a>',
                      dom)
        self.assertIn(f'data-run-id="{second}"', dom)
        dom = dump_dom(f"{base}/#/run/{first}", timeout_s=BROWSER_TIMEOUT_S)
        charts = canvases(dom)
        drawn = {c.get("data-metric"): int(c["data-points"]) for c in charts if "data-gpu" not in c}
        self.assertGreater(drawn.get("gpu_util_percent", 0), 0, dom[:2000])
        # The host's charts, and the memory grid: a small chart per GPU, both drawn.
        self.assertGreater(drawn.get("host.cpu_percent", 0), 0, sorted(drawn))
        self.assertGreater(drawn.get("host.mem_used_bytes", 0), 0, sorted(drawn))
        grid = {c["data-gpu"]: int(c["data-points"]) for c in charts if "data-gpu" in c}
        self.assertEqual(sorted(grid), ["0", "1"], dom[:2000])
        self.assertTrue(all(n > 0 for n in grid.values()), grid)
        # The epochs' table is headed with the catalogue's labels and units (/api/runs/ID's metrics).
        self.assertIn("GPU utilization % mean (GPU 0 / 1)", dom)
        self.assertIn("Memory used GiB mean (GPU 0 / 1)", dom)
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        # uPlot styles its elements from script (element.style), which style-src does not stop,
        # and adds no <style>: nothing is refused by the Content-Security-Policy, nothing thrown.
        for fragment in (f"#/run/{first}", f"#/compare/{first},{second}/epoch"):
            self.assertEqual(console_messages(f"{base}/{fragment}", timeout_s=BROWSER_TIMEOUT_S), [], fragment)
        dom = dump_dom(f"{base}/#/compare/{first},{second}", timeout_s=BROWSER_TIMEOUT_S)
        self.assertIn(f'data-runs="{first},{second}"', dom)
        self.assertIn('data-align="time"', dom)
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        # Both runs logged epochs: aligned by epoch, every chart still has both runs' lines.
        dom = dump_dom(f"{base}/#/compare/{first},{second}/epoch", timeout_s=BROWSER_TIMEOUT_S)
        self.assertIn('data-align="epoch"', dom)
        self.assertTrue(all(int(c["data-points"]) > 0 for c in canvases(dom)), dom[:2000])
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        shots = os.environ.get("GPUWATCH_SCREENSHOTS")  # a folder: docs/img/ when refreshing them
        if shots:
            # The runs list and a run's page: test_serve_story's annotated runs.
            screenshot(f"{base}/#/compare/{first},{second}", os.path.join(shots, "serve-compare.png"))

    def test_a_live_runs_chart_grows(self):
        # Long enough that the page is loaded while the run still records, however slowly
        # Chromium starts on a loaded machine (with 6 s it once loaded a finished run). Its
        # first start on a machine is the slow one (over 10 s in a fresh-clone CI run, where
        # this test, first in its class, loaded a finished run): it is started once before.
        dump_dom("about:blank", budget_ms=100, timeout_s=BROWSER_TIMEOUT_S)
        self.start_live_run(10)
        base = self.serve()
        status, series = self.get(f"{base}/api/runs/live/series?metric=gpu_util_percent&points=10000")
        at_load = len([v for v in series["devices"][0]["v"] if v is not None])
        # The page follows the run until its end event, then the DOM is printed.
        dom = dump_dom(f"{base}/#/run/live", budget_ms=20000, timeout_s=BROWSER_TIMEOUT_S)
        self.assertIn("run finished", dom)
        grown = re.search(r'data-metric="gpu_util_percent"[^>]*data-points="(\d+)"', dom) or \
            re.search(r'data-points="(\d+)"[^>]*data-metric="gpu_util_percent"', dom)
        self.assertIsNotNone(grown, dom[:2000])
        self.assertGreater(int(grown.group(1)), 2 * at_load)


if __name__ == "__main__":
    unittest.main()
