"""gpuwatch.metrics(): asking the recorder for its latest values."""
import os
import threading
import time

import gpuwatch
from gpuwatch import _metrics
from gpuwatch._client import SOCKET_ENV, Client

from tests.support import FakeRecorder, SocketTestCase

VALUES = {"gpu_total_memory": 3.5, "gpu_avg_utilization": 50.0, "gpu_0_memory": 3.5, "gpu_0_utilization": 50}


class MetricsTest(SocketTestCase):
    def recorder(self, **kwargs):
        recorder = FakeRecorder(self.directory, **kwargs)
        self.addCleanup(recorder.close)
        return recorder

    # Tests that expect an answer give it 5 s: the fake recorder is a thread,
    # which a loaded machine may not run within the 50 ms default.
    def metrics_client(self, recorder):
        client = Client(recorder.path, clock=self.clock)
        self.addCleanup(client.close)
        return client

    def test_the_answer_is_a_fresh_dict_of_numbers(self):
        recorder = self.recorder(metrics=dict(VALUES, note="x", flag=True))
        client = self.metrics_client(recorder)
        got = client.metrics(timeout=5)
        self.assertEqual(got, VALUES)
        got["loss"] = 1.0
        self.clock.now_ns += 300_000_000
        self.assertEqual(client.metrics(timeout=5), VALUES)
        (request, sender), _ = recorder.requests
        self.assertEqual(request, {"kind": "metrics", "id": 1})
        self.assertTrue(sender.startswith(b"\0"), sender)  # autobound: an abstract address

    def test_answers_are_cached_for_a_fifth_of_a_second(self):
        recorder = self.recorder(metrics=VALUES)
        client = self.metrics_client(recorder)
        for _ in range(5):
            self.assertEqual(client.metrics(timeout=5), VALUES)
        self.assertEqual(len(recorder.requests), 1)
        self.clock.now_ns += 199_000_000
        client.metrics(timeout=5)
        self.assertEqual(len(recorder.requests), 1)
        self.clock.now_ns += 2_000_000
        client.metrics(timeout=5)
        self.assertEqual(len(recorder.requests), 2)

    def test_wrong_answers_are_skipped(self):
        recorder = self.recorder(metrics=VALUES)
        recorder.garbage_first = True
        self.assertEqual(self.metrics_client(recorder).metrics(timeout=5), VALUES)

    def test_no_answer_gives_an_empty_dict_within_the_timeout_then_backs_off(self):
        recorder = self.recorder(answer=False)
        client = self.metrics_client(recorder)
        started = time.monotonic()
        self.assertEqual(client.metrics(timeout=0.05), {})
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(len(recorder.requests), 1)
        self.clock.now_ns += 900_000_000  # within the first second's pause: not asked
        self.assertEqual(client.metrics(), {})
        self.assertEqual(len(recorder.requests), 1)
        self.clock.now_ns += 200_000_000
        client.metrics(timeout=0.01)
        self.assertEqual(len(recorder.requests), 2)
        self.clock.now_ns += 1_500_000_000  # the pause doubled to 2 s
        client.metrics(timeout=0.01)
        self.assertEqual(len(recorder.requests), 2)
        recorder.answer = True
        self.clock.now_ns += 600_000_000
        self.assertEqual(client.metrics(), {})  # the recorder's (empty) metrics
        self.assertEqual(len(recorder.requests), 3)

    def test_outside_record_an_empty_dict_and_no_socket(self):
        os.environ.pop(SOCKET_ENV, None)
        gpuwatch._reset()
        self.assertEqual(gpuwatch.metrics(), {})
        self.assertIsNone(gpuwatch._client()._metrics)

    def test_a_path_with_nobody_there(self):
        client = Client(os.path.join(self.directory, "gone.sock"), clock=self.clock)
        self.addCleanup(client.close)
        started = time.monotonic()
        self.assertEqual(client.metrics(), {})
        self.assertLess(time.monotonic() - started, 0.5)

    def test_bad_timeouts_never_raise(self):
        recorder = self.recorder(answer=False)
        client = self.metrics_client(recorder)
        self.assertEqual(client.metrics(timeout="soon"), {})
        self.clock.now_ns += 10_000_000_000
        self.assertEqual(client.metrics(timeout=-1), {})

    def test_module_function_uses_GPUWATCH_SOCKET(self):
        recorder = self.recorder(metrics=VALUES)
        os.environ[SOCKET_ENV] = recorder.path
        gpuwatch._reset()
        self.assertEqual(gpuwatch.metrics(timeout=5), VALUES)
        gpuwatch.log(loss=0.5)
        gpuwatch._reset()
        deadline = time.monotonic() + 5
        while not recorder.annotations and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(recorder.annotations[0]["value"], {"loss": 0.5})  # annotations still go the same way

    def test_threads_share_one_request(self):
        recorder = self.recorder(metrics=VALUES)
        client = self.metrics_client(recorder)
        results = []
        threads = [threading.Thread(target=lambda: results.append(client.metrics(timeout=2))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [VALUES] * 8)
        self.assertEqual(len(recorder.requests), 1)

    def test_a_forked_child_asks_from_an_address_of_its_own(self):
        recorder = self.recorder(metrics=VALUES)
        client = self.metrics_client(recorder)
        self.assertEqual(client.metrics(timeout=5), VALUES)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its answer, not the parent's cache
            try:
                got = client.metrics(timeout=5)
                os.write(write_end, b"ok" if got == VALUES else b"bad")
            finally:
                os._exit(0)
        os.close(write_end)
        os.waitpid(pid, 0)
        self.assertEqual(os.read(read_end, 16), b"ok")
        os.close(read_end)
        senders = [sender for _, sender in recorder.requests]
        self.assertEqual(len(senders), 2)
        self.assertNotEqual(senders[0], senders[1])

    def test_parse_answer(self):
        self.assertEqual(_metrics.parse_answer(b'{"schema_version":1,"id":3,"metrics":{"a":1}}', 3), {"a": 1})
        self.assertIsNone(_metrics.parse_answer(b'{"schema_version":2,"id":3,"metrics":{"a":1}}', 3))
        self.assertIsNone(_metrics.parse_answer(b'{"schema_version":1,"id":4,"metrics":{"a":1}}', 3))
        self.assertIsNone(_metrics.parse_answer(b'{"schema_version":1,"id":3,"metrics":[]}', 3))
        self.assertIsNone(_metrics.parse_answer(b'[1]', 3))
        self.assertIsNone(_metrics.parse_answer(b'\xff', 3))


if __name__ == "__main__":
    import unittest
    unittest.main()
