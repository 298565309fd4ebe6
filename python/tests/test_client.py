import math
import os
import socket
import subprocess
import sys
import threading
import time
import types
import unittest
from unittest import mock

import gpuwatch
from gpuwatch._client import SOCKET_ENV

from tests.support import SocketTestCase, ms

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class MessagesTest(SocketTestCase):
    def test_every_kind_as_the_protocol_says(self):
        client = self.client()
        calls = [
            lambda: client.step(),
            lambda: client.step(7),
            lambda: client.step(),
            lambda: client.epoch(),
            lambda: client.epoch(5),
            lambda: client.epoch(),
            lambda: client.phase("train"),
            lambda: client.phase(None),
            lambda: client.phase(""),
            lambda: client.log({"loss": 0.5, "lr": 1e-3, "n": 3}),
        ]
        for i, call in enumerate(calls):
            self.clock.at_ms(1000 * i)  # a second apart: no throttling here
            call()
        self.clock.at_ms(10_000)
        client.mark("checkpoint saved ü")
        self.assertEqual(self.receiver.messages(), [
            {"kind": "step", "value": 1, "mono_ns": ms(0)},
            {"kind": "step", "value": 7, "mono_ns": ms(1000)},
            {"kind": "step", "value": 8, "mono_ns": ms(2000)},
            {"kind": "epoch", "value": 1, "mono_ns": ms(3000)},
            {"kind": "epoch", "value": 5, "mono_ns": ms(4000)},
            {"kind": "epoch", "value": 6, "mono_ns": ms(5000)},
            {"kind": "phase", "value": "train", "mono_ns": ms(6000)},
            {"kind": "phase", "value": None, "mono_ns": ms(7000)},
            {"kind": "phase", "value": None, "mono_ns": ms(8000)},
            {"kind": "log", "value": {"loss": 0.5, "lr": 0.001, "n": 3}, "mono_ns": ms(9000)},
            {"kind": "mark", "value": "checkpoint saved ü", "mono_ns": ms(10_000)},
        ])

    def test_datagrams_are_compact_ascii_json(self):
        self.client().mark("ü")
        raw = self.receiver.sock.recv(65536)
        self.assertEqual(raw, b'{"kind":"mark","value":"\\u00fc","mono_ns":%d}' % ms(0))

    def test_module_functions_send_to_GPUWATCH_SOCKET_on_the_monotonic_clock(self):
        os.environ[SOCKET_ENV] = self.receiver.path
        before_ns = time.monotonic_ns()
        self.assertTrue(gpuwatch.enabled())
        gpuwatch.epoch(3)
        gpuwatch.step(41)
        with gpuwatch.phase("val"):
            gpuwatch.mark("inside")
        gpuwatch.log(val_loss=0.25)
        gpuwatch.model(params=1234)
        after_ns = time.monotonic_ns()
        received = self.receiver.messages()
        self.assertEqual([(m["kind"], m["value"]) for m in received], [
            ("epoch", 3), ("step", 41), ("phase", "val"), ("mark", "inside"), ("phase", None),
            ("log", {"val_loss": 0.25}), ("log", {"model_params": 1234})])
        stamps = [m["mono_ns"] for m in received]
        self.assertTrue(all(isinstance(t, int) for t in stamps))
        self.assertEqual(stamps, sorted(stamps))
        self.assertGreaterEqual(stamps[0], before_ns)
        self.assertLessEqual(stamps[-1], after_ns)

    def test_model_counts_a_modules_parameters(self):
        self.use_module_client()
        tensor = types.SimpleNamespace
        module = types.SimpleNamespace(parameters=lambda: iter([tensor(numel=lambda: 1000), tensor(numel=lambda: 24)]))
        gpuwatch.model(module=module)
        self.assertEqual(self.receiver.messages(),
                         [{"kind": "log", "value": {"model_params": 1024}, "mono_ns": ms(0)}])
        with self.assertRaises(TypeError):
            gpuwatch.model()
        with self.assertRaises(TypeError):
            gpuwatch.model(params=1, module=module)

    def test_long_texts_are_cut_at_a_character_boundary(self):
        client = self.client()
        client.mark("é" * 600)  # 1200 bytes of UTF-8
        client.phase("p" * 100)
        mark, phase = self.receiver.messages()
        self.assertEqual(mark["value"], "é" * 512)
        self.assertEqual(phase["value"], "p" * 64)


class ArgumentsTest(SocketTestCase):
    """Mistakes in the calling program raise, whether or not anything is sent."""

    def check_rejected(self, client):
        with self.assertRaises(TypeError):
            client.log({"loss": "0.5"})
        with self.assertRaises(TypeError):
            client.log({"done": True})
        with self.assertRaises(TypeError):
            client.log({"loss": types.SimpleNamespace(value=0.5)})
        with self.assertRaises(TypeError):
            client.log({"loss": types.SimpleNamespace(item=0.5)})  # not callable
        with self.assertRaises(TypeError):
            client.log({"loss": None})
        with self.assertRaises(ValueError):
            client.log({"bad name": 1})
        with self.assertRaises(ValueError):
            client.log({"x" * 65: 1})
        with self.assertRaises(ValueError):
            client.log({f"m{i}": i for i in range(33)})
        with self.assertRaises(TypeError):
            client.step(1.5)
        with self.assertRaises(TypeError):
            client.step(True)
        with self.assertRaises(ValueError):
            client.step(-1)
        with self.assertRaises(TypeError):
            client.epoch("2")
        with self.assertRaises(TypeError):
            client.phase(3)

    def test_bad_arguments_raise_and_send_nothing(self):
        self.check_rejected(self.client())
        self.assertEqual(self.receiver.messages(), [])

    def test_bad_arguments_raise_outside_gpuwatch_too(self):
        self.check_rejected(self.client(path=""))

    def test_nan_and_infinities_are_dropped(self):
        client = self.client()
        client.log({"loss": math.nan, "lr": 0.1, "grad": math.inf})
        self.clock.at_ms(1000)
        client.log({"loss": math.nan})
        client.log({"big": 2 ** 70, "neg": -math.inf})
        self.assertEqual(self.receiver.messages(), [
            {"kind": "log", "value": {"lr": 0.1}, "mono_ns": ms(0)},
            {"kind": "log", "value": {"big": 2 ** 70}, "mono_ns": ms(1000)},
        ])


class ThrottleTest(SocketTestCase):
    def steps_at(self, client, times_ms):
        for t in times_ms:
            self.clock.at_ms(t)
            client.step()

    def test_steps_go_out_four_times_a_second_latest_first(self):
        client = self.client()
        self.steps_at(client, [0, 100, 200, 300, 400, 1000])
        self.assertEqual(self.receiver.messages(), [
            {"kind": "step", "value": 1, "mono_ns": ms(0)},
            # At 300 ms the window has passed: the held-back step 3 goes
            # first, with its own time, then step 4.
            {"kind": "step", "value": 3, "mono_ns": ms(200)},
            {"kind": "step", "value": 4, "mono_ns": ms(300)},
            {"kind": "step", "value": 5, "mono_ns": ms(400)},
            {"kind": "step", "value": 6, "mono_ns": ms(1000)},
        ])

    def test_a_held_back_step_goes_out_before_an_epoch_phase_or_mark(self):
        client = self.client()
        self.steps_at(client, [0, 200])
        self.clock.at_ms(240)
        client.epoch()
        # 300 ms is past the window of the step sent at 0 but not of the
        # flush at 240, which counts as the last send.
        self.steps_at(client, [300, 320])
        self.clock.at_ms(330)
        client.mark("m")
        self.clock.at_ms(335)
        client.phase("val")
        self.assertEqual([(m["kind"], m["value"], m["mono_ns"]) for m in self.receiver.messages()], [
            ("step", 1, ms(0)), ("step", 2, ms(200)), ("epoch", 1, ms(240)),
            ("step", 4, ms(320)), ("mark", "m", ms(330)), ("phase", "val", ms(335))])

    def test_logs_are_throttled_per_name_set(self):
        client = self.client()
        for t, scalars in [(0, {"loss": 1}), (10, {"acc": 1}), (20, {"loss": 2}), (30, {"loss": 3}),
                           (40, {"acc": 2, "loss": 9}), (50, {"loss": 9, "acc": 3})]:
            self.clock.at_ms(t)
            client.log(scalars)
        self.clock.at_ms(60)
        client.flush()
        client.flush()
        self.assertEqual([(m["value"], m["mono_ns"]) for m in self.receiver.messages()], [
            ({"loss": 1}, ms(0)), ({"acc": 1}, ms(10)), ({"acc": 2, "loss": 9}, ms(40)),
            ({"loss": 3}, ms(30)), ({"loss": 9, "acc": 3}, ms(50))])

    def test_threads_share_one_counter_and_the_latest_value_wins(self):
        client = self.client()

        def work():
            for _ in range(250):
                client.step()

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.flush()
        self.assertEqual([m["value"] for m in self.receiver.messages()], [1, 1000])

    def test_held_back_values_are_sent_at_exit(self):
        script = "import gpuwatch\nfor _ in range(50):\n    gpuwatch.step()\n"
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, **{SOCKET_ENV: self.receiver.path})
        subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
        values = [m["value"] for m in self.receiver.messages()]
        self.assertEqual(values[0], 1)
        self.assertEqual(values[-1], 50)


class PhaseContextTest(SocketTestCase):
    def test_leaving_the_block_ends_the_phase(self):
        client = self.client()
        with client.phase("val"):
            client.phase("inner")
        with self.assertRaises(KeyError):
            with client.phase("test"):
                raise KeyError("from the loop")
        self.assertEqual([m["value"] for m in self.receiver.messages()], ["val", "inner", None, "test", None])

    def test_the_module_function_is_a_context_manager_even_when_disabled(self):
        with gpuwatch.phase("val") as ended:
            pass
        self.assertIsNotNone(ended)
        self.assertEqual(self.receiver.messages(), [])


class NoRecorderTest(SocketTestCase):
    def call_everything(self):
        gpuwatch.step()
        gpuwatch.step(10)
        gpuwatch.epoch()
        with gpuwatch.phase("train"):
            gpuwatch.log(loss=0.5)
        gpuwatch.mark("m")
        gpuwatch.model(params=10)
        gpuwatch.log_torch_memory()

    def test_unset_socket_sends_nothing_and_makes_no_socket(self):
        with mock.patch("socket.socket", side_effect=AssertionError("socket made")), \
                mock.patch.dict(sys.modules, {"torch": None}):
            self.call_everything()
            self.assertFalse(gpuwatch.enabled())
        self.assertEqual(self.receiver.messages(), [])

    def test_socket_path_that_never_existed(self):
        os.environ[SOCKET_ENV] = os.path.join(self.directory, "missing.sock")
        self.assertTrue(gpuwatch.enabled())
        self.call_everything()

    def test_recorder_that_went_away(self):
        os.environ[SOCKET_ENV] = self.receiver.path
        gpuwatch.mark("still there")
        self.assertEqual(len(self.receiver.messages()), 1)
        self.receiver.close()  # the file stays: sends are refused
        self.call_everything()
        os.unlink(self.receiver.path)  # now it is gone
        self.call_everything()

    def test_full_queue_never_blocks(self):
        filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(filler.close)
        filler.setblocking(False)
        queued = 0
        while queued < 1_000_000:
            try:
                filler.sendto(b"{}", self.receiver.path)
            except BlockingIOError:
                break
            queued += 1
        self.assertLess(queued, 1_000_000, "the queue never filled")
        client = self.client()
        for i in range(5000):
            client.mark(f"dropped {i}")
            client.epoch()
        self.assertEqual(len(self.receiver.messages()), queued)


class ForkTest(SocketTestCase):
    def test_a_forked_child_sends_on_its_own_socket(self):
        self.use_module_client()
        client = gpuwatch._default
        gpuwatch.step()
        self.clock.at_ms(10)
        gpuwatch.step()  # held back in the parent
        self.assertEqual(len(self.receiver.messages()), 1)
        parent_socket = client._sock
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                client.flush()  # the parent's held-back step is not the child's
                gpuwatch.mark(f"child {os.getpid()}")
                status = 0 if client._sock is not parent_socket and client._sock_pid == os.getpid() else 3
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFEXITED(status))
        self.assertEqual(os.WEXITSTATUS(status), 0)
        self.assertEqual(self.receiver.wait_message()["value"], f"child {pid}")
        self.assertEqual(self.receiver.messages(), [])
        gpuwatch.mark("parent")
        self.assertEqual([m["value"] for m in self.receiver.messages()], [2, "parent"])


class TorchMemoryTest(SocketTestCase):
    def fake_torch(self, available=True):
        asked = []

        def counter(value):
            return lambda device=None: asked.append(device) or value

        cuda = types.SimpleNamespace(is_available=lambda: available, memory_allocated=counter(100),
                                     memory_reserved=counter(200), max_memory_allocated=counter(150))
        return types.SimpleNamespace(cuda=cuda), asked

    def test_logs_the_allocator_counters(self):
        self.use_module_client()
        torch, asked = self.fake_torch()
        with mock.patch.dict(sys.modules, {"torch": torch}):
            gpuwatch.log_torch_memory("cuda:1")
        self.assertEqual(asked, ["cuda:1"] * 3)
        self.assertEqual(self.receiver.messages(), [{"kind": "log", "mono_ns": ms(0), "value": {
            "torch_allocated_bytes": 100, "torch_reserved_bytes": 200, "torch_max_allocated_bytes": 150}}])

    def test_nothing_without_cuda_or_torch(self):
        self.use_module_client()
        torch, asked = self.fake_torch(available=False)
        with mock.patch.dict(sys.modules, {"torch": torch}):
            gpuwatch.log_torch_memory()
        with mock.patch.dict(sys.modules, {"torch": None}):
            gpuwatch.log_torch_memory()
        self.assertEqual(asked, [])
        self.assertEqual(self.receiver.messages(), [])


if __name__ == "__main__":
    unittest.main()
