"""gpuwatch exporter against the fake driver: /metrics carries the driver's values in Prometheus
names and base units (and dcgm-exporter's with --dcgm-compat), passes promtool when it is
installed, answers 404 elsewhere; a bad --listen is a usage error; SIGTERM ends it with 0; a real
Prometheus server (Debian's `prometheus`, when installed) scrapes it and returns the fake's value.
And what no client may do (issue 22): a Host header that names another site is refused (DNS
rebinding), headers past 8 KiB are 431 and a flood of them costs nothing, slow and silent clients
leave scrapes answered at once."""
import datetime
import http.client
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from harness import FIXTURES, QUICK, GpuwatchTestCase, tree
from http_clients import Idlers, flood, raw_request, rss_mib

MiB = 1024 ** 2
# GPU 1 is busy; GPU 0 has no memory temperature (a metric it lacks).
SCENARIO = f"{QUICK};gpu_count=2;gpu1.util=77;gpu1.mem_used_mib=1024;gpu0.unsupported=mem_temp"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')


def parse(body):
    """{(name, frozenset of label pairs): value} of every sample line."""
    out = {}
    for line in body.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        labels = frozenset(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


# A series name in a query; not the stem of a regular expression (`gpuwatch_gpu_.+`).
NAME = r"\bgpuwatch_[a-z_]+(?![a-z_.(])"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
RULES = os.path.join(ROOT, "contrib", "prometheus", "gpuwatch-rules.yml")
SCRAPES = os.path.join(ROOT, "tests", "prometheus")
OWNER_LABELS = {"slurm_job", "container", "pod_uid"}


def label_names(samples):
    """{name: label names} of parsed samples."""
    out = {}
    for (name, labels) in samples:
        out.setdefault(name, set()).update(k for k, _ in labels)
    return out


def scrape_fixtures():
    """{name: label names} of tests/prometheus/scrape-*.txt, the scrapes the rules' tests are checked against."""
    samples = {}
    for f in sorted(os.listdir(SCRAPES)):
        if f.startswith("scrape-") and f.endswith(".txt"):
            with open(os.path.join(SCRAPES, f)) as fh:
                samples.update(parse(fh.read()))
    return label_names(samples)


def value(samples, metric, /, **labels):
    hits = [v for (n, ls), v in samples.items() if n == metric and set(labels.items()) <= set(ls)]
    return hits[0] if len(hits) == 1 else None


class ExporterTest(GpuwatchTestCase):
    def start(self, *args, listen="127.0.0.1:0", **env):
        self.proc = self.start_gw("exporter", "--listen", listen, "--interval", "0.2", *args,
                                  scenario=SCENARIO, **env)
        self.addCleanup(self.stop_quietly)
        ready, _, _ = select.select([self.proc.stdout], [], [], 5)
        self.assertTrue(ready, "no URL printed within 5 s")
        line = self.proc.stdout.readline()
        m = re.search(r"http://[0-9.]+:(\d+)/metrics", line)
        self.assertIsNotNone(m, line)
        return f"http://127.0.0.1:{m.group(1)}"

    def stop_quietly(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def scrape_until(self, base, name, /, timeout=5, **labels):
        """The first scrape (within `timeout` s) that has the sample asked for."""
        deadline = time.monotonic() + timeout
        while True:
            with urllib.request.urlopen(base + "/metrics", timeout=2) as r:
                self.assertEqual(r.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
                body = r.read().decode()
            samples = parse(body)
            if value(samples, name, **labels) is not None or time.monotonic() > deadline:
                return body, samples
            time.sleep(0.1)

    def test_native_names_values_promtool_404_and_sigterm(self):
        base = self.start()
        body, s = self.scrape_until(base, "gpuwatch_gpu_temperature_celsius", gpu="1", sensor="memory")
        self.assertNotIn("gpuwatch_process", body)  # per-process series are opt-in
        self.assertEqual(value(s, "gpuwatch_up"), 1)
        self.assertEqual(value(s, "gpuwatch_collector_success", backend="nvml"), 1)
        self.assertEqual(value(s, "gpuwatch_gpu_utilization_ratio", gpu="1"), 0.77)
        self.assertEqual(value(s, "gpuwatch_gpu_utilization_ratio", gpu="0"), 0)
        self.assertEqual(value(s, "gpuwatch_gpu_memory_used_bytes", gpu="1"), 1024 * MiB)
        self.assertEqual(value(s, "gpuwatch_gpu_memory_total_bytes", gpu="1"), 81559 * MiB)
        info = [ls for (n, ls) in s if n == "gpuwatch_gpu_info"]
        self.assertEqual(len(info), 2)
        self.assertEqual({k for k, _ in info[0]}, {"gpu", "uuid", "pci_bus_id", "name", "vendor", "hostname"})
        # The metric GPU 0 lacks is left out, not 0.
        self.assertIsNone(value(s, "gpuwatch_gpu_temperature_celsius", gpu="0", sensor="memory"))
        self.assertIsNotNone(value(s, "gpuwatch_gpu_temperature_celsius", gpu="0", sensor="gpu"))
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        with self.assertRaises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/nothing-here", timeout=2)
        self.assertEqual(missing.exception.code, 404)
        with urllib.request.urlopen(base + "/", timeout=2) as r:
            self.assertIn("/metrics", r.read().decode())
        # A kept-alive connection answers again (an idle one costs a socket, no thread, no polling).
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=2)
        try:
            for _ in range(2):
                conn.request("GET", "/metrics")
                reply = conn.getresponse()
                self.assertEqual(reply.status, 200)
                reply.read()
        finally:
            conn.close()
        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(timeout=5), 0, self.proc.stderr.read())

    def test_the_recording_run_beside_the_gpus(self):
        # A run recording into the same store, with epochs from its output and a GPU the advisor
        # finds underused; the exporter reads it every 2 s.
        underused = f"{SCENARIO};gpu0.util=20;gpu0.mem_used_mib=2048"
        training = ("import time\n"
                    "for step in range(1, 3000):\n"
                    "    print(f'epoch {1 + step // 20} step {step} loss {1 / step:.4f}', flush=True)\n"
                    "    time.sleep(0.05)\n")
        rec = self.start_gw("record", "--name", "resnet", "--interval", "0.1", "--no-summary", "--annotate-regex",
                            r"epoch (?<epoch>\d+) step (?<step>\d+) loss (?<loss>[0-9.]+)", "--", "python3", "-c",
                            training, scenario=underused)
        self.addCleanup(lambda: (os.killpg(rec.pid, signal.SIGTERM), rec.communicate(timeout=30)))
        self.wait_for(lambda: os.path.exists(self.store), what="the run's store")
        base = self.start("--advisor-config", self.short_advisor_config(), "--processes")
        body, s = self.scrape_until(base, "gpuwatch_run_advisory", timeout=30, id="memory.batch_too_small", gpu="0")
        # A warning, or info where the advisor finds the host the cause (util.host_bound): on a loaded
        # machine the training's own loop is starved of CPU.
        severity = [dict(ls)["severity"] for (n, ls) in s
                    if n == "gpuwatch_run_advisory" and {("id", "memory.batch_too_small"), ("gpu", "0")} <= ls]
        self.assertIn(severity, (["warning"], ["info"]), body)
        self.assertEqual(value(s, "gpuwatch_run_info", name="resnet"), 1, body)
        self.assertEqual(value(s, "gpuwatch_run_gpu", name="resnet", gpu="1"), 1)
        self.assertGreaterEqual(value(s, "gpuwatch_run_advisories", severity="warning"), 1)
        self.assertEqual(value(s, "gpuwatch_run_advisories", severity="critical"), 0)
        self.assertGreater(value(s, "gpuwatch_run_elapsed_seconds"), 0)
        # Steps per second need a window before the latest: the last series to come.
        body, s = self.scrape_until(base, "gpuwatch_run_steps_per_second", timeout=20)
        self.assertGreater(value(s, "gpuwatch_run_steps_per_second"), 0, body)
        self.assertGreaterEqual(value(s, "gpuwatch_run_epoch"), 1, body)
        self.assertGreaterEqual(value(s, "gpuwatch_run_step"), 1)
        self.assertGreater(value(s, "gpuwatch_run_loss"), 0)
        run_ids = {dict(ls)["run_id"] for (n, ls) in s if n == "gpuwatch_run_info"}
        self.assertEqual(len(run_ids), 1)
        self.check_grafana_dashboard({n for (n, _) in s} | {"gpuwatch_process_memory_used_bytes",
                                                             "gpuwatch_gpu_xid_errors_total"})
        # Only other scenarios give these: test_processes_opt_in, test_xid_and_double_bit_ecc_errors.
        self.check_scrape_fixtures(s, elsewhere={"gpuwatch_process_memory_used_bytes",
                                                 "gpuwatch_process_gpu_utilization_ratio",
                                                 "gpuwatch_gpu_xid_errors_total"})
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.stop_quietly()
        # --no-run: the GPUs alone, though the run still records.
        base = self.start("--no-run")
        body, s = self.scrape_until(base, "gpuwatch_gpu_utilization_ratio", gpu="0")
        self.assertNotIn("gpuwatch_run_", body)

    def test_processes_opt_in(self):
        sleeper = subprocess.Popen(["sleep", "60"])
        self.addCleanup(lambda: (sleeper.kill(), sleeper.wait()))
        scenario = f"{SCENARIO};gpu1.processes={sleeper.pid}:{1024 * MiB}"
        base = self.start("--processes", FAKE_NVML_SET=scenario)
        body, s = self.scrape_until(base, "gpuwatch_process_memory_used_bytes", pid=str(sleeper.pid))
        self.assertEqual(value(s, "gpuwatch_process_memory_used_bytes", pid=str(sleeper.pid), gpu="1",
                               command="sleep"), 1024 * MiB, body)
        self.assertEqual(value(s, "gpuwatch_gpu_processes", gpu="1"), 1)
        self.assertEqual(value(s, "gpuwatch_gpu_processes", gpu="0"), 0)
        self.check_scrape_fixtures(s)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_process_owner_labels(self):
        # tests/fixtures/procfs/cgroup_owners: one process per cgroup layout (its README names the sources).
        scenario = (f"{SCENARIO};gpu0.processes=5101:{1024 * MiB},5102:{2048 * MiB},5107:{64 * MiB},"
                    f"5109:{16 * MiB},5113:{8 * MiB};gpu1.processes=5103:{512 * MiB},5104:{256 * MiB},"
                    f"5105:{128 * MiB},5106:{32 * MiB},5110:{4 * MiB},5111:{2 * MiB},5112:{MiB};"
                    "gpu0.process_util=5101:50;gpu1.process_util=5103:40")
        base = self.start("--processes", FAKE_NVML_SET=scenario, GPUWATCH_PROCFS_ROOT=tree("procfs/cgroup_owners"))
        # The utilization comes with the memory, from the same reading of the driver's list.
        body, s = self.scrape_until(base, "gpuwatch_process_gpu_utilization_ratio", pid="5106")
        owners = {dict(ls)["pid"]: {k: v for k, v in ls if k in ("slurm_job", "container", "pod_uid")}
                  for (n, ls) in s if n == "gpuwatch_process_memory_used_bytes"}
        self.assertEqual(owners, {
            "5101": {"slurm_job": "1234.0"},
            "5102": {"slurm_job": "1233_7.0"},
            "5103": {"container": "3f4e1b2c5d6a"},
            "5104": {"container": "9b2c4e6f8a0b", "pod_uid": "11111111-2222-3333-4444-555555555555"},
            "5105": {"container": "c0ffee112233", "pod_uid": "0a1b2c3d-4e5f-6789-abcd-ef0123456789"},
            "5106": {"container": "5e6f7a8b9c0d", "pod_uid": "fedcba98-7654-3210-fedc-ba9876543210"},
            "5107": {},  # a systemd unit is no label
            "5109": {"slurm_job": "1234.batch"},
            "5110": {"slurm_job": "1233_7.0"},
            "5111": {"container": "a7c3e5f1b2d4"},
            "5112": {"container": "3f4e1b2c5d6a"},
            "5113": {},  # the root cgroup: no owner
        }, body)
        # One series per process, as without owners.
        self.assertEqual(value(s, "gpuwatch_gpu_processes", gpu="1"), 7)
        self.assertEqual(value(s, "gpuwatch_process_memory_used_bytes", pid="5102", slurm_job="1233_7.0",
                               command="python3"), 2048 * MiB)
        # tests/prometheus/scrape-owners.txt, on which the per-owner recording rules' tests are checked,
        # is a scrape like this one: the same owner labels.
        self.check_scrape_fixtures(s)
        fixtures = scrape_fixtures()
        for name in ("gpuwatch_process_memory_used_bytes", "gpuwatch_process_gpu_utilization_ratio"):
            self.assertEqual(fixtures[name], label_names(s)[name], name)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_xid_and_double_bit_ecc_errors(self):
        # Scripted NVML events on GPU 1: two XID 79, a double-bit ECC error, an application's XID 13.
        events = "xid:79@0.3,xid:79@0.5,ecc_double_bit@0.6,xid:13@0.7,ecc_single_bit@0.8"
        base = self.start(FAKE_NVML_SET=f"{SCENARIO};gpu1.events={events}")
        body, s = self.scrape_until(base, "gpuwatch_gpu_xid_errors_total", gpu="1", xid="13")
        self.assertEqual(value(s, "gpuwatch_gpu_xid_errors_total", gpu="1", xid="79"), 2, body)
        self.assertEqual(value(s, "gpuwatch_gpu_xid_errors_total", gpu="1", xid="13"), 1, body)
        self.assertIsNone(value(s, "gpuwatch_gpu_xid_errors_total", gpu="0"), body)  # none yet: no series
        self.assertEqual(value(s, "gpuwatch_gpu_ecc_double_bit_errors_total", gpu="1"), 1, body)
        self.assertEqual(value(s, "gpuwatch_gpu_ecc_double_bit_errors_total", gpu="0"), 0, body)
        self.assertIn("# TYPE gpuwatch_gpu_xid_errors_total counter\n", body)
        self.check_scrape_fixtures(s)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def check_scrape_fixtures(self, samples, elsewhere=()):
        """tests/prometheus/scrape-*.txt, against which prometheus.rules checks the alerting rules' names and
        their tests' labels, still have the exporter's names and labels: each name this scrape has, with the
        same label names; with `elsewhere`, every fixture name but those is in this scrape."""
        live, fixtures = label_names(samples), scrape_fixtures()
        for name in fixtures.keys() & live.keys():
            # A process's owner labels come only where it has that owner (scrape-owners.txt has them).
            owners = OWNER_LABELS if name.startswith("gpuwatch_process_") else set()
            self.assertEqual(fixtures[name] - owners, live[name] - owners,
                             f"{name}: tests/prometheus/scrape-*.txt are out of date")
            self.assertLessEqual(live[name], fixtures[name], f"{name}: tests/prometheus/scrape-*.txt are out of date")
        if elsewhere:
            self.assertEqual(fixtures.keys() - live.keys() - set(elsewhere), set(),
                             "names in tests/prometheus/scrape-*.txt that the exporter no longer serves")

    def check_grafana_dashboard(self, exported):
        """contrib/grafana/gpuwatch.json is a dashboard whose queries ask only for names the exporter has."""
        with open(os.path.join(os.path.dirname(FIXTURES), "..", "contrib", "grafana", "gpuwatch.json")) as f:
            dash = json.load(f)
        ids = [p["id"] for p in dash["panels"]]
        self.assertEqual(len(ids), len(set(ids)))
        asked = set()
        for panel in dash["panels"]:
            self.assertEqual(set(panel["gridPos"]), {"x", "y", "w", "h"})
            for target in panel.get("targets", []):
                asked |= set(re.findall(NAME, target["expr"]))
        for variable in dash["templating"]["list"]:
            asked |= set(re.findall(NAME, variable.get("definition", "")))
        self.assertGreater(len(asked), 10)
        self.assertEqual(asked - exported, set(), "the dashboard asks for names the exporter does not have")

    def test_no_run_and_run_exclude_each_other(self):
        r = self.run_gw("exporter", "--no-run", "--run", "last")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--no-run", r.stderr)

    def test_dcgm_compat_names_units_and_labels(self):
        base = self.start("--dcgm-compat")
        body, s = self.scrape_until(base, "DCGM_FI_DEV_GPU_UTIL", gpu="1")
        self.assertEqual(value(s, "DCGM_FI_DEV_GPU_UTIL", gpu="1", device="nvidia1"), 77)
        self.assertEqual(value(s, "DCGM_FI_DEV_FB_USED", gpu="1"), 1024)
        self.assertEqual(value(s, "DCGM_FI_DEV_FB_FREE", gpu="1"), 81559 - 1024)
        labels = {k for (n, ls) in s if n == "DCGM_FI_DEV_GPU_UTIL" for k, _ in ls}
        self.assertEqual(labels, {"gpu", "UUID", "pci_bus_id", "device", "modelName", "hostname"})
        self.assertNotIn("gpuwatch_gpu_", body)
        if shutil.which("promtool"):
            # dcgm-exporter's own names break two lint rules (camelCase labels, a counter without
            # _total) on purpose; anything else, a parse error above all, fails.
            check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True,
                                   timeout=10)
            self.assertIn(check.returncode, (0, 3), check.stdout + check.stderr)
            for line in (check.stdout + check.stderr).splitlines():
                self.assertTrue(line.endswith("label names should be written in 'snake_case' not 'camelCase'")
                                or line.endswith('counter metrics should have "_total" suffix'), line)
        self.proc.send_signal(signal.SIGINT)
        self.assertEqual(self.proc.wait(timeout=5), 0, self.proc.stderr.read())

    def test_an_amd_gpu_from_sysfs(self):
        base = self.start(library="/nonexistent/libnvidia-ml.so.1",
                          GPUWATCH_SYSFS_ROOT=tree("sysfs/w7900"))
        _, s = self.scrape_until(base, "gpuwatch_gpu_utilization_ratio", gpu="0")
        self.assertEqual(value(s, "gpuwatch_gpu_utilization_ratio", gpu="0", vendor="AMD"), 0.64)
        self.assertEqual(value(s, "gpuwatch_collector_success", backend="amdgpu"), 1)
        self.assertIsNone(value(s, "gpuwatch_collector_success", backend="nvml"))
        # The W7900 under load: edge 56, junction 73 (tests/fixtures/README.md, sysfs table).
        _, s = self.scrape_until(base, "gpuwatch_gpu_temperature_celsius", sensor="junction")
        self.assertEqual(value(s, "gpuwatch_gpu_temperature_celsius", gpu="0", sensor="junction"), 73)

    def test_bad_listen_is_a_usage_error(self):
        r = self.run_gw("exporter", "--listen", "localhost", timeout=10)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--listen", r.stderr)
        self.assertIn("ADDR:PORT", r.stderr)

    def test_a_taken_port_is_an_error(self):
        base = self.start()
        port = base.rsplit(":", 1)[1]
        r = self.run_gw("exporter", "--listen", f"127.0.0.1:{port}", timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"cannot listen on 127.0.0.1:{port}", r.stderr)

    @unittest.skipUnless(shutil.which("prometheus"), "Debian's prometheus is not installed")
    def status_with_host(self, base, host):
        request = f"GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        return raw_request(base, request)[0]

    def test_a_host_that_names_another_site_is_refused(self):
        base = self.start()
        port = base.rsplit(":", 1)[1]
        self.assertEqual(self.status_with_host(base, f"evil.example:{port}"), 403)
        self.assertEqual(self.status_with_host(base, f"127.0.0.1.nip.io:{port}"), 403)
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            self.assertEqual(self.status_with_host(base, host), 200, host)
        self.stop_quietly()
        # On every interface: any address, this machine's name, and the names given.
        base = self.start("--allow-host", "Scrape.Example", listen="0.0.0.0:0")
        port = base.rsplit(":", 1)[1]
        for host in (f"10.1.2.3:{port}", f"scrape.example:{port}", f"{socket.gethostname()}:{port}"):
            self.assertEqual(self.status_with_host(base, host), 200, host)
        self.assertEqual(self.status_with_host(base, f"evil.example:{port}"), 403)

    def test_headers_past_the_limit_are_431_and_a_flood_costs_nothing(self):
        base = self.start()
        big = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 10000 + b"\r\n\r\n"
        self.assertEqual(raw_request(base, big)[0], 431)
        before = rss_mib(self.proc.pid)
        answers = flood(base, "/metrics", megabytes=40)
        self.assertTrue(all(a in (None, 431) for a in answers), answers)
        self.assertLess(rss_mib(self.proc.pid) - before, 20)

    def test_slow_and_silent_clients_leave_scrapes_answered(self):
        # Four tricklers (a byte a second) used to stall every scrape for 20 s; a hundred silent
        # connections are more than the 64 it is told to keep: the oldest silent one makes room.
        base = self.start("--max-connections", "64")
        with Idlers(base, "/metrics", silent=100, trickling=4):
            for _ in range(3):
                time.sleep(1)
                started = time.monotonic()
                with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
                    self.assertEqual(r.status, 200)
                self.assertLess(time.monotonic() - started, 1)

    def test_a_real_prometheus_scrapes_it(self):
        base = self.start()
        target = base.removeprefix("http://")
        with socket.socket() as s:
            # Prometheus has no port 0 of its own to report back; the gap between close and its
            # bind is a race too small to matter on a test machine.
            s.bind(("127.0.0.1", 0))
            prom_addr = f"127.0.0.1:{s.getsockname()[1]}"
        config = os.path.join(self.tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n  evaluation_interval: 500ms\n"
                    f"rule_files: ['{os.path.abspath(RULES)}']\n"
                    f"scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n      - targets: ['{target}']\n")
        log = open(os.path.join(self.tmp, "prometheus.log"), "w+")
        self.addCleanup(log.close)
        prom = subprocess.Popen(["prometheus", f"--config.file={config}",
                                 f"--storage.tsdb.path={os.path.join(self.tmp, 'tsdb')}",
                                 f"--web.listen-address={prom_addr}", "--log.level=warn"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

        def stop_prometheus():
            if prom.poll() is None:
                prom.kill()
            prom.wait()
        self.addCleanup(stop_prometheus)

        def query(expr):
            """The instant vector for expr, [] until Prometheus is up and has scraped."""
            url = f"http://{prom_addr}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
            try:
                with urllib.request.urlopen(url, timeout=1) as r:
                    answer = json.load(r)
            except OSError:
                return []
            self.assertEqual(answer["status"], "success", answer)
            return answer["data"]["result"]

        # Its first scrape comes within one interval of its start, which takes about a second.
        deadline = time.monotonic() + 10
        while not (util := query('gpuwatch_gpu_utilization_ratio{gpu="1"}')):
            log.seek(0)
            self.assertIsNone(prom.poll(), f"prometheus exited: {log.read()}")
            self.assertLess(time.monotonic(), deadline, "no sample in Prometheus within 10 s")
            time.sleep(0.2)
        self.assertEqual(len(util), 1, util)
        labels, (_, val) = util[0]["metric"], util[0]["value"]
        self.assertEqual(float(val), 0.77)
        self.assertEqual(labels["gpu"], "1")
        self.assertEqual(labels["job"], "gpuwatch")
        self.assertEqual(labels["instance"], target)
        self.assertEqual(labels["uuid"], "GPU-fa4e0000-0000-4000-8000-000000000001")
        self.assertEqual(labels["name"], "NVIDIA H100 80GB HBM3")
        self.assertEqual(labels["vendor"], "NVIDIA")
        self.assertEqual(labels["pci_bus_id"], "0000:20:00.0")
        self.assertEqual(float(query('gpuwatch_gpu_utilization_ratio{gpu="0"}')[0]["value"][1]), 0)
        up = query('up{job="gpuwatch"}')
        self.assertEqual([float(u["value"][1]) for u in up], [1])
        # Units survive the trip: bytes, not MiB.
        mem = query('gpuwatch_gpu_memory_used_bytes{gpu="1"}')
        self.assertEqual(float(mem[0]["value"][1]), 1024 * MiB)
        # contrib/prometheus/gpuwatch-rules.yml loads and its recording rules see the scraped series.
        deadline = time.monotonic() + 10
        while not (count := query("gpuwatch:gpus:count")):
            self.assertLess(time.monotonic(), deadline, "the recording rules gave nothing within 10 s")
            time.sleep(0.2)
        self.assertEqual([float(c["value"][1]) for c in count], [2])
        self.assertEqual(sorted(c["metric"]["gpu"] for c in query("gpuwatch:gpu_thermal_throttled:bool")), ["0", "1"])
        # An alert group evaluated before the first scrape saw no `up` at all, so
        # GpuwatchExporterAbsent is pending until the group's next evaluation: judge the
        # alerts only once every one of them was evaluated after the scraped data was there.
        scraped = time.time()

        def alert_rules():
            with urllib.request.urlopen(f"http://{prom_addr}/api/v1/rules?type=alert", timeout=2) as r:
                return [a for g in json.load(r)["data"]["groups"] for a in g["rules"]]

        def evaluated_at(rule):
            # RFC 3339 with nanoseconds; Python reads at most microseconds.
            stamp = re.sub(r"(\.\d{6})\d*", r"\1", rule["lastEvaluation"]).replace("Z", "+00:00")
            return datetime.datetime.fromisoformat(stamp).timestamp()
        deadline = time.monotonic() + 10
        rules = alert_rules()
        while any(evaluated_at(a) <= scraped for a in rules):
            self.assertLess(time.monotonic(), deadline, "the alert rules were not evaluated within 10 s")
            time.sleep(0.2)
            rules = alert_rules()
        self.assertGreater(len(rules), 0)
        firing = [a["name"] for a in rules if a["state"] != "inactive"]
        self.assertEqual(firing, [], "an alert is pending or firing on a healthy fake GPU")


if __name__ == "__main__":
    unittest.main()
