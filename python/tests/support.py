"""A real recorder-side socket and a settable clock for the client tests."""
import json
import os
import shutil
import socket
import tempfile
import unittest

import gpuwatch
from gpuwatch._client import SOCKET_ENV, Client


class FakeClock:
    """CLOCK_MONOTONIC as the test says it is, in nanoseconds."""

    def __init__(self):
        self.now_ns = 1_000_000_000

    def __call__(self):
        return self.now_ns

    def at_ms(self, ms):
        self.now_ns = 1_000_000_000 + ms * 1_000_000
        return self.now_ns


def ms(t_ms):
    """The FakeClock reading at t_ms."""
    return 1_000_000_000 + t_ms * 1_000_000


class Receiver:
    """A bound datagram socket standing in for `gpuwatch record`."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "annotations.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def messages(self):
        """Everything queued so far, parsed. Datagrams to a local socket are
        queued by the time sendto returns, so nothing needs waiting for."""
        received = []
        self.sock.setblocking(False)
        while True:
            try:
                received.append(json.loads(self.sock.recv(65536).decode("utf-8")))
            except BlockingIOError:
                return received

    def wait_message(self):
        """The next message from another process (with a guard against a hang)."""
        self.sock.settimeout(30)
        return json.loads(self.sock.recv(65536).decode("utf-8"))

    def close(self):
        self.sock.close()


class SocketTestCase(unittest.TestCase):
    """Each test gets a receiver, a fake clock and a clean GPUWATCH_SOCKET."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="gw")
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.receiver = Receiver(self.directory)
        self.addCleanup(self.receiver.close)
        saved = os.environ.pop(SOCKET_ENV, None)
        if saved is not None:
            self.addCleanup(os.environ.__setitem__, SOCKET_ENV, saved)
        self.addCleanup(os.environ.pop, SOCKET_ENV, None)
        gpuwatch._reset()
        self.addCleanup(gpuwatch._reset)
        self.clock = FakeClock()

    def client(self, path=None):
        client = Client(self.receiver.path if path is None else path, clock=self.clock)
        self.addCleanup(client.close)
        return client

    def use_module_client(self):
        """Makes the module-level functions send to the receiver on the fake clock."""
        gpuwatch._default = self.client()


class FakeRecorder:
    """A recorder's socket on a thread of its own that answers metrics
    requests with `metrics` (nothing when answer is False), and keeps the
    annotations it receives."""

    def __init__(self, directory, metrics=None, answer=True):
        import threading
        self.path = os.path.join(directory, "recorder.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.metrics = {} if metrics is None else metrics
        self.answer = answer
        self.requests = []
        self.annotations = []
        self.garbage_first = False  # answer with junk and a wrong id before the answer
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                data, sender = self.sock.recvfrom(65536)
            except OSError:
                return
            if data == b"stop":
                return
            message = json.loads(data.decode("utf-8"))
            if message.get("kind") != "metrics":
                self.annotations.append(message)
                continue
            self.requests.append((message, sender))
            if not self.answer or not sender:
                continue
            if self.garbage_first:
                self.sock.sendto(b"\xff not json", sender)
                self.sock.sendto(json.dumps({"schema_version": 1, "id": message["id"] + 1,
                                             "metrics": {"wrong": 1}}).encode(), sender)
            answer = {"schema_version": 1, "id": message["id"], "gpus": [0], "metrics": self.metrics}
            self.sock.sendto(json.dumps(answer).encode(), sender)

    def close(self):
        stopper = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            stopper.sendto(b"stop", self.path)
        except OSError:
            pass
        stopper.close()
        self._thread.join(5)
        self.sock.close()
