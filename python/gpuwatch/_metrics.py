"""gpuwatch.metrics(): the recorder's latest GPU values, asked for on the
annotation socket (docs/python.md has the names, docs/annotations.md the
request and the answer).

A request is one datagram, {"kind":"metrics","id":N}, sent from a socket of
this process bound to an autobound abstract address, so that the recorder can
send its answer back to it. Waiting for the answer is bounded by a timeout
(50 ms by default); no answer, or no recorder, gives {}. Answers are cached
for 0.2 s, so calling it every step costs a dictionary copy most of the time,
and a recorder that does not answer is asked again only after a pause that
grows up to a minute: a training loop never keeps waiting for gpuwatch.
"""
import json
import numbers
import os
import socket
import threading
import time

METRICS_KIND = "metrics"
SCHEMA_VERSION = 1
DEFAULT_TIMEOUT_S = 0.05
CACHE_NS = 200_000_000
# After an unanswered request: 1 s, doubling up to a minute.
FIRST_BACKOFF_NS = 1_000_000_000
MAX_BACKOFF_NS = 60_000_000_000
MAX_ANSWER_BYTES = 1 << 20
_MAX_ID = 1 << 53


def parse_answer(data, request_id):
    """The metrics of an answer datagram to request_id, or None when it is
    not one (another request's answer, a newer schema, garbage)."""
    try:
        answer = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(answer, dict) or answer.get("id") != request_id:
        return None
    if answer.get("schema_version") != SCHEMA_VERSION:
        return None
    metrics = answer.get("metrics")
    if not isinstance(metrics, dict):
        return None
    return {name: value for name, value in metrics.items()
            if isinstance(name, str) and isinstance(value, numbers.Real) and not isinstance(value, bool)}


class MetricsRequester:
    """Asks the recorder at path for its latest values; thread-safe.

    clock returns integer nanoseconds of CLOCK_MONOTONIC (for the cache and
    the back-off; the timeout is real time).
    """

    def __init__(self, path, clock=time.monotonic_ns):
        self._path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._sock = None
        self._sock_pid = None
        self._next_id = 0
        # (metrics, good until ns): the latest answer ({} after a failure),
        # one attribute so that a thread without the lock reads a consistent pair.
        self._cached = None
        self._backoff_ns = FIRST_BACKOFF_NS

    def metrics(self, timeout=DEFAULT_TIMEOUT_S):
        """A fresh dict of the latest values; {} when the recorder does not answer."""
        try:
            timeout = max(0.0, float(timeout))
        except (TypeError, ValueError):
            timeout = DEFAULT_TIMEOUT_S
        cached = self._fresh(self._clock())
        if cached is not None:
            return dict(cached)
        # Another thread asking right now: wait for it, at most the timeout.
        if not self._lock.acquire(timeout=timeout):
            cached = self._cached
            return dict(cached[0]) if cached is not None else {}
        try:
            now = self._clock()
            cached = self._fresh(now)
            if cached is not None:
                return dict(cached)
            metrics = self._ask(timeout)
            now = self._clock()
            if metrics is None:
                self._cached = ({}, now + self._backoff_ns)
                self._backoff_ns = min(self._backoff_ns * 2, MAX_BACKOFF_NS)
                return {}
            self._cached = (metrics, now + CACHE_NS)
            self._backoff_ns = FIRST_BACKOFF_NS
            return dict(metrics)
        finally:
            self._lock.release()

    def _fresh(self, now):
        """The cached metrics while they are still good to return, else None."""
        cached = self._cached
        if cached is None or now >= cached[1]:
            return None
        return cached[0]

    def _ask(self, timeout):
        """The recorder's answer (lock held), or None."""
        sock = self._socket()
        if sock is None:
            return None
        self._next_id = (self._next_id + 1) % _MAX_ID
        request_id = self._next_id
        request = json.dumps({"kind": METRICS_KIND, "id": request_id}, separators=(",", ":")).encode("ascii")
        # Not waiting (a socket with a timeout would wait even with MSG_DONTWAIT).
        sock.setblocking(False)
        try:
            while True:  # answers to earlier requests that timed out
                sock.recv(MAX_ANSWER_BYTES)
        except OSError:
            pass
        try:
            sock.sendto(request, self._path)
        except OSError:
            return None  # no recorder there (any more), or its queue is full
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                sock.settimeout(remaining)
                data = sock.recv(MAX_ANSWER_BYTES)
            except OSError:  # socket.timeout is one
                return None
            metrics = parse_answer(data, request_id)
            if metrics is not None:
                return metrics

    def _socket(self):
        # A forked child asks on a socket (and an address) of its own.
        pid = os.getpid()
        if self._sock_pid != pid:
            self._sock = None
            self._sock_pid = pid
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                try:
                    sock.bind("")  # Linux autobind: an abstract address the recorder can answer
                except OSError:
                    sock.close()
                    raise
                self._sock = sock
            except OSError:
                pass  # no asking in this process
        return self._sock

    def close(self):
        with self._lock:
            if self._sock is not None and self._sock_pid == os.getpid():
                self._sock.close()
            self._sock = None
            self._sock_pid = None

    def after_fork_in_child(self):
        self._lock = threading.Lock()
        self._cached = None
        self._backoff_ns = FIRST_BACKOFF_NS
