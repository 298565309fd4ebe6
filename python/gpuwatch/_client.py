"""The sending side of the gpuwatch annotation protocol (docs/python.md).

One JSON object per datagram on a non-blocking AF_UNIX socket: a full queue or
a recorder that has gone away costs one failed system call and the message,
never a blocked or crashed training loop.
"""
import atexit
import json
import math
import numbers
import operator
import os
import re
import socket
import threading
import time
import weakref

from gpuwatch import _steps
from gpuwatch._metrics import DEFAULT_TIMEOUT_S, MetricsRequester
from gpuwatch._tensors import deferred, is_deferred

SOCKET_ENV = "GPUWATCH_SOCKET"

# Limits the recorder enforces; anything longer is dropped there, so it is
# cut or refused here where the caller can still be told.
MAX_DATAGRAM_BYTES = 8192
MAX_PHASE_BYTES = 64
MAX_MARK_BYTES = 1024
MAX_LOG_NAMES = 32
MAX_NAME_BYTES = 64

# Steps and logs may come every iteration; about four messages a second per
# kind (per name set for logs) is plenty for a recorder that keeps one a second.
THROTTLE_NS = 250_000_000

# Messages waiting for a GPU copy of their tensors, per set of names: when the
# GPU is this far behind (or hung), the oldest is dropped, never waited for.
MAX_IN_FLIGHT = 4
# close() and the exit wait this long at most for copies still in flight.
CLOSE_WAIT_S = 1.0

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")


def non_negative_int(n, what):
    """n as an int, for step and epoch numbers."""
    if isinstance(n, bool):
        raise TypeError(f"gpuwatch.{what}: expected an integer, got a bool")
    try:
        value = operator.index(n)
    except TypeError:
        raise TypeError(f"gpuwatch.{what}: expected an integer, got {type(n).__name__}") from None
    if value < 0:
        raise ValueError(f"gpuwatch.{what}: expected a non-negative integer, got {value}")
    return value


def _json_number(value):
    """A finite number as JSON writes it, or None for NaN and infinities."""
    if isinstance(value, numbers.Integral):
        return int(value)
    as_float = float(value)
    return as_float if math.isfinite(as_float) else None


def scalar_values(scalars):
    """scalars (name -> number) as JSON-ready values; values with .item()
    (tensors) stay deferred until sent (resolved_values).

    Non-numbers raise TypeError and bad names ValueError: both are mistakes in
    the calling program. NaN and infinities are dropped: they happen in
    training and the protocol has no way to carry them.
    """
    if len(scalars) > MAX_LOG_NAMES:
        raise ValueError(f"gpuwatch.log: at most {MAX_LOG_NAMES} names per call, got {len(scalars)}")
    values = {}
    for name, value in scalars.items():
        if not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME_BYTES:
            raise ValueError(
                f"gpuwatch.log: bad name {name!r} (want [A-Za-z_][A-Za-z0-9_.]*, at most {MAX_NAME_BYTES} bytes)")
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            number = _json_number(value)
            if number is not None:
                values[name] = number
            continue
        kept = None if isinstance(value, bool) else deferred(name, value)
        if kept is None:
            raise TypeError(
                f"gpuwatch.log: {name} must be a number or a one-element tensor, got {type(value).__name__}")
        values[name] = kept
    return values


def resolved_values(values):
    """values with every deferred one read; those that are no finite number are left out."""
    out = {}
    for name, value in values.items():
        if is_deferred(value):
            number = value.read()
            value = None if number is None else _json_number(number)
        if value is not None:
            out[name] = value
    return out


def truncate_utf8(text, limit_bytes):
    """text cut to at most limit_bytes of UTF-8, never inside a character."""
    return text.encode("utf-8", "replace")[:limit_bytes].decode("utf-8", "ignore")


class _Counter:
    """Counts 1, 2, 3... unless told a number, then counts on from there."""

    __slots__ = ("last",)

    def __init__(self):
        self.last = 0

    def next(self, n):
        self.last = self.last + 1 if n is None else n
        return self.last


class _Slot:
    """Throttling state of one message key: when it last went out, the
    latest message held back since, and the messages gone out that wait for
    the GPU copies of their tensors (oldest first)."""

    __slots__ = ("sent_ns", "pending", "in_flight")

    def __init__(self):
        self.sent_ns = None
        self.pending = None
        self.in_flight = []


def _copies_started(message):
    """Starts the GPU copies of a log message's tensors; whether all have landed."""
    ready = True
    if message["kind"] == "log":
        for value in message["value"].values():
            if is_deferred(value):
                value.start()
                ready = value.ready() and ready
    return ready


def _copies_ready(message):
    return all(value.ready() for value in message["value"].values() if is_deferred(value))


class PhaseContext:
    """Returned by phase(): the phase has already started; leaving a `with`
    block ends it (whatever phase is current by then)."""

    __slots__ = ("_client",)

    def __init__(self, client):
        self._client = client

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self._client.phase(None)
        return False


_live_clients = weakref.WeakSet()


class Client:
    """Sends annotations to the recorder's socket at path; with path None or
    empty it checks its arguments and sends nothing.

    clock returns integer nanoseconds of CLOCK_MONOTONIC; tests pass their own.
    """

    def __init__(self, path, clock=time.monotonic_ns, throttle_ns=THROTTLE_NS):
        self.enabled = bool(path)
        self._path = path
        self._clock = clock
        self._throttle_ns = throttle_ns
        self._lock = threading.Lock()
        self._sock = None
        self._sock_pid = None
        self._steps = _Counter()
        self._epochs = _Counter()
        self._slots = {}
        self._in_flight = 0  # messages in the slots' in_flight lists
        self.dropped_in_flight = 0  # dropped because the GPU was too far behind
        self._step_times = _steps.StepTimes()
        self._metrics = MetricsRequester(path, clock) if self.enabled else None
        if self.enabled:
            _live_clients.add(self)

    def clock(self):
        """Now, on the clock of the messages' mono_ns."""
        return self._clock()

    def step(self, n=None):
        if n is not None:
            n = non_negative_int(n, "step")
        if not self.enabled:
            return
        with self._lock:
            self._throttled(("step",), {"kind": "step", "value": self._steps.next(n)})

    def epoch(self, n=None):
        if n is not None:
            n = non_negative_int(n, "epoch")
        if not self.enabled:
            return
        with self._lock:
            # The steps of the epoch that ends go out before it, when they may.
            self._send_step_times(_steps.StepTimes.may_send)
            self._immediate({"kind": "epoch", "value": self._epochs.next(n)})

    def phase(self, name):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"gpuwatch.phase: expected a string or None, got {type(name).__name__}")
        if self.enabled:
            value = truncate_utf8(name, MAX_PHASE_BYTES) if name else None
            with self._lock:
                self._send_step_times(_steps.StepTimes.may_send)
                self._immediate({"kind": "phase", "value": value})
        return PhaseContext(self)

    def log(self, scalars):
        values = scalar_values(scalars)
        if not self.enabled or not values:
            return
        with self._lock:
            self._throttled(("log",) + tuple(sorted(values)), {"kind": "log", "value": values})

    def time_step(self, wait_ns, step_ns, end_ns):
        """One step's data wait and time (gpuwatch.loader, the callbacks);
        sent, summed, about once a second."""
        if not self.enabled:
            return
        with self._lock:
            if self._in_flight:
                self._send_landed()
            self._step_times.add(wait_ns, step_ns, end_ns)
            self._send_step_times(_steps.StepTimes.due)

    def end_steps(self):
        """A loader's iteration or an epoch ended: its steps go out now
        unless a message went out less than a second before."""
        if not self.enabled:
            return
        with self._lock:
            self._send_step_times(_steps.StepTimes.may_send)

    def mark(self, text):
        if not self.enabled:
            return
        with self._lock:
            self._immediate({"kind": "mark", "value": truncate_utf8(str(text), MAX_MARK_BYTES)})

    def metrics(self, timeout=DEFAULT_TIMEOUT_S):
        """The recorder's latest GPU values (a fresh dict); {} without an answer."""
        metrics = self._metrics
        if not self.enabled or metrics is None:
            return {}
        return metrics.metrics(timeout)

    def flush(self):
        """Sends the messages the throttle still holds back (those waiting for
        a GPU copy go out once it has landed, at a later call)."""
        if not self.enabled:
            return
        with self._lock:
            self._flush_pending(self._clock())

    def _flush_at_exit(self):
        # A daemon thread may be stuck holding the lock: never hang the exit.
        if self.enabled and self._lock.acquire(timeout=1.0):
            try:
                self._flush_last()
            finally:
                self._lock.release()

    def _flush_last(self):
        """Everything, before closing or at exit: the step times whatever
        their spacing, and the GPU copies waited for, at most CLOSE_WAIT_S."""
        self._send_step_times(lambda times: times.steps > 0)
        self._flush_pending(self._clock())
        deadline = time.monotonic() + CLOSE_WAIT_S
        while self._in_flight and time.monotonic() < deadline:
            time.sleep(0.001)
            self._send_landed()
        self._in_flight = 0
        for slot in self._slots.values():
            slot.in_flight = []

    def close(self):
        """Sends what is held back and closes the socket; later calls send nothing."""
        if self.enabled:
            with self._lock:
                self._flush_last()
        with self._lock:
            self.enabled = False
            if self._sock is not None and self._sock_pid == os.getpid():
                self._sock.close()
            self._sock = None
        if self._metrics is not None:
            self._metrics.close()

    # Everything below runs with self._lock held, so messages leave in the
    # order of their mono_ns even with several threads sending.

    def _throttled(self, key, message):
        now = self._clock()
        message["mono_ns"] = now
        if self._in_flight:
            self._send_landed()
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot()
        elif now - slot.sent_ns < self._throttle_ns:
            slot.pending = message
            return
        # The held-back value goes first, with its own time: the last step
        # before a long pause (validation, a stall) is worth knowing exactly.
        if slot.pending is not None:
            self._send(slot.pending, slot)
            slot.pending = None
        self._send(message, slot)
        slot.sent_ns = now

    def _immediate(self, message):
        now = self._clock()
        message["mono_ns"] = now
        if self._in_flight:
            self._send_landed()
        # Held-back steps and logs belong before an epoch, phase or mark that
        # follows them.
        self._flush_pending(now)
        self._send(message)

    def _flush_pending(self, now):
        held = [slot for slot in self._slots.values() if slot.pending is not None]
        held.sort(key=lambda slot: slot.pending["mono_ns"])
        for slot in held:
            self._send(slot.pending, slot)
            slot.pending = None
            slot.sent_ns = now

    def _send_step_times(self, may_go):
        if may_go(self._step_times):
            self._send(self._step_times.take())

    def _send_landed(self):
        """Sends the messages whose GPU copies have landed, in order per slot."""
        for slot in self._slots.values():
            while slot.in_flight and _copies_ready(slot.in_flight[0]):
                self._in_flight -= 1
                self._send_now(slot.in_flight.pop(0))

    def _send(self, message, slot=None):
        """Sends message, or, when a tensor of it is being copied from the
        GPU, keeps it in its slot until the copy has landed."""
        # Behind a message still in flight even when ready: the order stays.
        if slot is not None and (not _copies_started(message) or slot.in_flight):
            if len(slot.in_flight) >= MAX_IN_FLIGHT:
                slot.in_flight.pop(0)  # the GPU is far behind: the newest values matter more
                self.dropped_in_flight += 1
                self._in_flight -= 1
            slot.in_flight.append(message)
            self._in_flight += 1
            return
        self._send_now(message)

    def _send_now(self, message):
        if message["kind"] == "log":
            message = dict(message, value=resolved_values(message["value"]))
            if not message["value"]:
                return
        data = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")
        if len(data) > MAX_DATAGRAM_BYTES:
            return
        sock = self._socket()
        if sock is None:
            return
        try:
            sock.sendto(data, self._path)
        except OSError:
            pass  # queue full, recorder gone, path too long: the message is dropped

    def _socket(self):
        # A forked child must not share the parent's socket object; the pid
        # check also covers forks that bypass os.register_at_fork.
        pid = os.getpid()
        if self._sock_pid != pid:
            if self._sock is not None:
                try:
                    self._sock.close()
                except OSError:
                    pass
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                sock.setblocking(False)
            except OSError:
                sock = None  # no sending in this process; not worth retrying
            self._sock = sock
            self._sock_pid = pid
        return self._sock

    def _after_fork_in_child(self):
        # Another thread may have held the lock at the fork; and what the
        # parent held back is the parent's to send.
        self._lock = threading.Lock()
        for slot in self._slots.values():
            slot.pending = None
            slot.in_flight = []  # the parent's CUDA events, the parent's messages
        self._in_flight = 0
        self._step_times = _steps.StepTimes()
        if self._metrics is not None:
            self._metrics.after_fork_in_child()


def _after_fork_in_child():
    for client in list(_live_clients):
        client._after_fork_in_child()


def _flush_at_exit():
    for client in list(_live_clients):
        client._flush_at_exit()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_flush_at_exit)
