#!/usr/bin/env python3
"""Hostile clients against `gpuwatch exporter` and `gpuwatch serve` (issue 22, items 5-7).

Each probe starts a fresh server (so that its peak RSS is the probe's own), attacks it from this
process and measures, from outside, what an honest client meanwhile gets:

  flood      150 MB of small headers ("X-Flood: N") on 4 connections at once, against the
             exporter, serve, and serve with --token: the server's RSS before, its peak and after,
             what each flooding connection got back, and a normal request afterwards;
  slowloris  4 (exporter) and 16 (serve) connections that send a request line and then a byte a
             second, reconnecting when dropped, for --seconds: a GET of /metrics or /api/runs
             every second meanwhile, its latency and status;
  silent     1,000 connections that send nothing (reopened when dropped), the same GETs;
  live       500 clients of /api/live on a recording run (the fake driver records beside the
             server), /api/runs every second meanwhile, and how many streams were let in;
  big        on a store of two long runs (make_run_store: 8 GPUs x 35 h x 10 Hz each, 10 M
             device-samples; built if --big-store is not given): /api/compare of the two and
             /api/live?since=0 of one (read for up to 120 s): status, time, bytes, biggest event,
             the server's peak RSS.

Python 3 standard library only, Linux (RSS from /proc, peak reset through clear_refs). Prints one
markdown table; --json-out writes every number. Run it against an old and a new binary with
--bin; results are in docs/performance.md.
"""
import argparse
import http.client
import json
import os
import re
import resource
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sampler_cost import machine_meta, write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MiB = 1024 * 1024


# ---- the server under test -------------------------------------------------------------------

class Server:
    """A gpuwatch server started with its URL read from its first line."""

    def __init__(self, args, env, *argv):
        self.proc = subprocess.Popen([args.bin, *argv, "--listen", "127.0.0.1:0"], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"{argv[0]} printed no URL: {line!r}")
        self.port = int(m.group(1))

    def status(self, key):
        """VmRSS, VmHWM ... of the server, in MiB."""
        try:
            with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith(key + ":"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None

    def reset_peak(self):
        with open(f"/proc/{self.proc.pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


def timed_get(port, path, timeout=30.0, headers=None):
    """(status or error text, seconds) of one GET on a new connection."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        r.read()
        result = r.status
    except (OSError, http.client.HTTPException) as e:
        result = type(e).__name__
    finally:
        conn.close()
    return result, time.monotonic() - started


def watch_gets(port, path, seconds, stop_early=None, headers=None):
    """GETs one after the other, one a second at most, for `seconds`."""
    results = []
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (stop_early and stop_early()):
        status, took = timed_get(port, path, timeout=max(1.0, end - time.monotonic() + 30), headers=headers)
        results.append((status, took))
        time.sleep(max(0.0, 1.0 - took))
    ok = [t for s, t in results if s == 200]
    return {"gets": len(results), "ok": len(ok),
            "statuses": sorted({str(s) for s, _ in results}),
            "p50_s": round(statistics.median(t for _, t in results), 3) if results else None,
            "max_s": round(max(t for _, t in results), 3) if results else None}


def connect(port, blocking_s=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if blocking_s is None:
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
    else:
        s.settimeout(blocking_s)
        s.connect(("127.0.0.1", port))
    return s


def answer_of(sock, wait_s):
    """The status line's code, or what happened instead."""
    sock.settimeout(wait_s)
    try:
        data = sock.recv(64)
    except socket.timeout:
        return "no answer"
    except OSError as e:
        return type(e).__name__
    if not data:
        return "closed"
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return int(m.group(1)) if m else "garbage"


# ---- the probes ------------------------------------------------------------------------------

def flood(server, path, total_bytes=150 * 10**6, connections=4):
    """Small headers, as fast as the server takes them, on `connections` at once; a connection the
    server closes is opened again (an attacker would) until all the bytes are sent."""
    server.reset_peak()
    before = server.status("VmRSS")
    chunk = b"".join(b"X-Flood: %d\r\n" % (i % 1000) for i in range(80_000))  # ~1 MB of header lines
    answers, sent, opened = {}, [0] * connections, [0] * connections
    lock = threading.Lock()

    def note(answer):
        with lock:
            answers[str(answer)] = answers.get(str(answer), 0) + 1

    def one(i):
        share = total_bytes // connections
        while sent[i] < share:
            try:
                sock = connect(server.port, blocking_s=30)
            except OSError as e:
                note(f"{type(e).__name__} (connecting)")
                return
            opened[i] += 1
            try:
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
                while sent[i] < share:
                    sock.sendall(chunk)
                    sent[i] += len(chunk)
                sock.sendall(b"\r\n")
                note(answer_of(sock, 30))
            except OSError:
                # The server closed it: what it said first, if anything.
                try:
                    sock.setblocking(False)
                    m = re.match(rb"HTTP/1\.[01] (\d{3})", sock.recv(64) or b"")
                    note(int(m.group(1)) if m else "closed")
                except OSError:
                    note("reset")
            finally:
                sock.close()

    started = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - started
    time.sleep(1)
    status, get_s = timed_get(server.port, path, timeout=30)
    return {"rss_before_mib": round(before, 1), "rss_peak_mib": round(server.status("VmHWM"), 1),
            "rss_after_mib": round(server.status("VmRSS"), 1), "seconds": round(took, 1),
            "sent_mb": round(sum(sent) / 1e6, 1), "connections": sum(opened), "answers": answers,
            "then_get": [status, round(get_s, 3)], "server_alive": server.alive()}


class Attackers:
    """`count` connections kept open by a background thread: each sends `opening` once, then
    `trickle` once a second; dropped ones are reopened (an attacker would)."""

    def __init__(self, port, count, opening=b"", trickle=b""):
        self.port, self.count, self.opening, self.trickle = port, count, opening, trickle
        self.socks, self.reopened, self.stopping = [], 0, False
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def open_one(self):
        s = connect(self.port)
        self.socks.append([s, False])

    def loop(self):
        while len(self.socks) < self.count and not self.stopping:
            self.open_one()
        while not self.stopping:
            for entry in list(self.socks):
                s, opened = entry
                try:
                    if not opened:
                        if self.opening:
                            s.send(self.opening)
                        entry[1] = True
                    elif self.trickle:
                        s.send(self.trickle)
                    readable, _, _ = select.select([s], [], [], 0)
                    if readable and not s.recv(4096):
                        raise ConnectionResetError
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    s.close()
                    self.socks.remove(entry)
                    self.open_one()
                    self.reopened += 1
            time.sleep(1)

    def __enter__(self):
        self.thread.start()
        time.sleep(2)  # let them all connect and start
        return self

    def __exit__(self, *exc):
        self.stopping = True
        self.thread.join()
        for s, _ in self.socks:
            s.close()


def slow_attack(server, path, count, seconds, opening, trickle):
    server.reset_peak()
    with Attackers(server.port, count, opening, trickle) as attack:
        result = watch_gets(server.port, path, seconds)
        result["reopened"] = attack.reopened
    result["rss_peak_mib"] = round(server.status("VmHWM"), 1)
    result["server_alive"] = server.alive()
    return result


def live_clients(server, run, count, seconds):
    """`count` clients of /api/live at once; /api/runs meanwhile."""
    server.reset_peak()
    request = f"GET /api/live?run={run} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    # As EventSource does: the request as soon as the connection is up (a server with a short
    # listen queue leaves some connecting for a while).
    pending, socks = [connect(server.port) for _ in range(count)], []
    until = time.monotonic() + 10
    while pending and time.monotonic() < until:
        _, writable, _ = select.select([], pending, [], 0.5)
        for s in writable:
            pending.remove(s)
            try:
                s.sendall(request)
                socks.append(s)
            except OSError:
                s.close()
    for s in pending:
        s.close()
    result = watch_gets(server.port, "/api/runs", seconds)
    statuses = {}
    for s in socks:
        status = answer_of(s, 0.2)
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        s.close()
    result["live_answers"] = statuses
    result["rss_peak_mib"] = round(server.status("VmHWM"), 1)
    return result


def big_compare(server, ids):
    server.reset_peak()
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
    try:
        conn.request("GET", f"/api/compare?runs={ids[0]},{ids[1]}")
        r = conn.getresponse()
        body = r.read()
        status, size = r.status, len(body)
        notes = json.loads(body).get("notes", []) if r.status == 200 else body[:200].decode(errors="replace")
    except (OSError, http.client.HTTPException) as e:
        status, size, notes = type(e).__name__, 0, None
    conn.close()
    return {"status": status, "seconds": round(time.monotonic() - started, 1), "bytes": size,
            "rss_peak_mib": server.status("VmHWM"), "notes": notes, "server_alive": server.alive()}


def big_live(server, run, seconds=120):
    """/api/live?since=0 of a finished run, read until its end event or `seconds`."""
    server.reset_peak()
    started = time.monotonic()
    sock = connect(server.port, blocking_s=30)
    sock.sendall(f"GET /api/live?run={run}&since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    received, biggest, events, pending, ended = 0, 0, 0, b"", False
    first_event_s = None
    sock.settimeout(5)
    while time.monotonic() - started < seconds and not ended:
        try:
            data = sock.recv(1 << 20)
        except socket.timeout:
            continue
        except OSError:
            break
        if not data:
            break
        received += len(data)
        pending += data
        # Events end with a blank line (chunk framing is left in: sizes are about right).
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            if b"event: samples" in event:
                events += 1
                biggest = max(biggest, len(event))
                first_event_s = first_event_s or round(time.monotonic() - started, 2)
            ended = ended or b"event: end" in event
        biggest = max(biggest, len(pending))
    sock.close()
    return {"seconds": round(time.monotonic() - started, 1), "mb": round(received / 1e6, 1), "events": events,
            "biggest_event_mb": round(biggest / 1e6, 2), "first_event_s": first_event_s, "ended": ended,
            "rss_peak_mib": server.status("VmHWM"), "server_alive": server.alive()}


# ---- the set-up and the table ----------------------------------------------------------------

def record_small_store(args, env):
    r = subprocess.run([args.bin, "record", "--name", "small", "--interval", "0.1", "--no-summary", "--", "sleep",
                        "1"], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"http_probe: recording the small run failed: {r.stderr}")


def big_store(args, tmp):
    if args.big_store:
        return args.big_store
    path = os.path.join(tmp, "big.db")
    for name in ("big-a", "big-b"):
        subprocess.run([args.make_run_store, "--out", path, "--name", name], check=True)
    return path


def run_ids(args, env):
    r = subprocess.run([args.bin, "runs", "--format", "json"], env=env, capture_output=True, text=True, check=True)
    listed = json.loads(r.stdout)
    runs = listed["runs"] if isinstance(listed, dict) else listed  # an object with schema_version since issue 24
    return [run["id"] for run in runs][-2:]


def with_server(args, env, argv, probe):
    server = Server(args, env, *argv)
    try:
        return probe(server)
    finally:
        server.stop()


def probes(args, tmp):
    env = dict(os.environ, GPUWATCH_STORE=os.path.join(tmp, "runs.db"), GPUWATCH_NVML_LIBRARY=args.fake_nvml,
               FAKE_NVML_SET="gpu_count=8;pcie_delay_ms=0;energy_delay_ms=0")
    record_small_store(args, env)
    exporter = ("exporter", "--interval", "1", "--no-run")
    serve = ("serve",)
    token = ("serve", "--token", "probe-token")
    line = lambda path: f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()  # noqa: E731
    want = set(args.probes.split(","))
    rows = []

    def add(name, server_name, fn):
        if name.split(" ")[0] not in want:
            return
        print(f"http_probe: {name} on {server_name} ...", file=sys.stderr, flush=True)
        try:
            row = {"probe": name, "server": server_name, **fn()}
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:  # a probe that fails is a row too
            row = {"probe": name, "server": server_name, "error": f"{type(e).__name__}: {e}"}
        print(f"http_probe: {describe(row)}", file=sys.stderr, flush=True)
        rows.append(row)

    for server_name, argv, path in (("exporter", exporter, "/metrics"), ("serve", serve, "/api/runs"),
                                    ("serve --token", token, "/api/runs")):
        add("flood", server_name, lambda: with_server(args, env, argv, lambda s: flood(s, path)))
    for server_name, argv, path, count in (("exporter", exporter, "/metrics", 4), ("serve", serve, "/api/runs", 16)):
        add(f"slowloris x{count}", server_name, lambda: with_server(
            args, env, argv, lambda s: slow_attack(s, path, count, args.seconds, line(path), b"X")))
        add("silent x1000", server_name, lambda: with_server(
            args, env, argv, lambda s: slow_attack(s, path, 1000, args.seconds, b"", b"")))
    if "live" in want:
        recorder = subprocess.Popen([args.bin, "record", "--name", "live", "--interval", "0.5", "--no-summary", "--",
                                     "sleep", str(args.seconds + 60)], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        try:
            time.sleep(3)
            add("live x500", "serve", lambda: with_server(
                args, env, serve, lambda s: live_clients(s, "live", 500, args.seconds)))
        finally:
            recorder.terminate()
            recorder.wait()
    if "big" in want:
        big_env = dict(env, GPUWATCH_STORE=big_store(args, tmp))
        ids = run_ids(args, big_env)
        add("big compare", "serve", lambda: with_server(args, big_env, serve, lambda s: big_compare(s, ids)))
        add("big live since=0", "serve", lambda: with_server(args, big_env, serve, lambda s: big_live(s, ids[0])))
    return rows


def describe(row):
    """The row's result in a table cell."""
    keys = [k for k in row if k not in ("probe", "server")]
    return "; ".join(f"{k} {row[k]}" for k in keys)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(REPO, "build", "gpuwatch"), help="gpuwatch (default: %(default)s)")
    p.add_argument("--fake-nvml", help="the fake NVML (default: <bin dir>/tests/fake_nvml/libnvidia-ml-fake.so)")
    p.add_argument("--big-store", help="a store whose last two runs are long (default: make one, ~150 s, ~720 MB)")
    p.add_argument("--make-run-store", default=os.path.join(REPO, "build", "make_run_store"),
                   help="the store maker (default: %(default)s)")
    p.add_argument("--probes", default="flood,slowloris,silent,live,big", help="which (default: %(default)s)")
    p.add_argument("--seconds", type=int, default=20, help="each attack's length (default: %(default)s)")
    p.add_argument("--json-out", help="also write all numbers here as JSON")
    args = p.parse_args()
    args.fake_nvml = args.fake_nvml or os.path.join(os.path.dirname(args.bin), "tests", "fake_nvml",
                                                    "libnvidia-ml-fake.so")
    for path in (args.bin, args.fake_nvml):
        if not os.path.exists(path):
            sys.exit(f"http_probe: {path} does not exist (build gpuwatch and the fake NVML, or pass --bin/--fake-nvml)")
    # 1,000 attackers and the probes' own connections need more descriptors than the usual 1,024.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    tmp = tempfile.mkdtemp(prefix="gpuwatch-http-probe-")
    try:
        rows = probes(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta = machine_meta(args.bin)
    print(f"gpuwatch HTTP probes, {meta['date']}, {meta['nproc']} x {meta['cpu_model']}, build {meta['build_type']}, "
          f"{args.bin}\n")
    print("| probe | server | result |")
    print("|---|---|---|")
    for row in rows:
        print(f"| {row['probe']} | {row['server']} | {describe(row)} |")
    if args.json_out:
        write_json(args.json_out, meta, rows)


if __name__ == "__main__":
    main()
