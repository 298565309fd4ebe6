"""Clients no HTTP library would be: raw sockets that flood, trickle or say nothing, for the
limits of `gpuwatch exporter` and `gpuwatch serve` (docs/serve.md, "Limits")."""
import re
import socket
import threading
import time


def address(base):
    host, port = base.removeprefix("http://").split("/")[0].split(":")
    return host, int(port)


def status_of(data):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data or b"")
    return int(m.group(1)) if m else None


def raw_request(base, request, timeout=10):
    """(status, whole answer) of bytes sent as they are on a new connection."""
    with socket.create_connection(address(base), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                more = s.recv(65536)
                if not more:
                    break
                data += more
        except OSError:
            pass
    return status_of(data), data


def rss_mib(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def flood(base, path, megabytes, connections=4):
    """Small headers, `megabytes` in all over `connections` at once; the answers (status or None)."""
    chunk = b"".join(b"X-Flood: %d\r\n" % (i % 1000) for i in range(80_000))  # ~1 MB
    answers = [None] * connections

    def one(i):
        try:
            with socket.create_connection(address(base), timeout=10) as s:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
                try:
                    for _ in range(max(1, megabytes // connections)):
                        s.sendall(chunk)
                except OSError:
                    pass
                s.settimeout(5)
                answers[i] = status_of(s.recv(64))
        except OSError:
            pass
    threads = [threading.Thread(target=one, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


class Idlers:
    """`silent` connections that send nothing, and `trickling` ones that send a request line and
    then a byte a second, for as long as the with-block lasts."""

    def __init__(self, base, path, silent=0, trickling=0):
        self.addr = address(base)
        self.line = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()
        self.silent = [socket.create_connection(self.addr, timeout=5) for _ in range(silent)]
        self.trickling = []
        for _ in range(trickling):
            s = socket.create_connection(self.addr, timeout=5)
            s.sendall(self.line)
            self.trickling.append(s)
        self.stopping = False
        self.thread = threading.Thread(target=self.trickle, daemon=True)

    def trickle(self):
        while not self.stopping:
            for s in self.trickling:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            time.sleep(1)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping = True
        self.thread.join()
        for s in self.silent + self.trickling:
            s.close()
