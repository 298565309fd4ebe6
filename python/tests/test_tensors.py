"""log() with tensors: their .item(), which waits for the GPU, is called only
for the messages that go out (a few a second), never at every call."""
import math

import gpuwatch

from tests.support import SocketTestCase, ms


class CountingTensor:
    """Stands in for a one-element torch tensor; counts what a sync would cost."""

    items = 0  # .item() calls over all instances

    def __init__(self, value, numel=1):
        self.value = value
        self._numel = numel
        self.detached = False

    def numel(self):
        return self._numel

    def detach(self):
        copy = CountingTensor(self.value, self._numel)
        copy.detached = True
        return copy

    def item(self):
        CountingTensor.items += 1
        if not self.detached:
            raise AssertionError("item() on the tensor with its autograd graph, not a detached one")
        if self.value is None:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return self.value


class NumpyScalar:
    """A numpy scalar or array: .item() and a size attribute, no numel or detach."""

    def __init__(self, value, size=1):
        self.value = value
        self.size = size

    def item(self):
        return self.value


class TensorTest(SocketTestCase):
    def setUp(self):
        super().setUp()
        CountingTensor.items = 0

    def test_item_is_read_only_for_messages_sent(self):
        client = self.client()
        # 100 steps of 10 ms: one second of training, a new loss every step.
        for step in range(100):
            self.clock.at_ms(step * 10)
            client.log({"loss": CountingTensor(float(step)), "lr": 0.1})
        client.flush()
        sent = self.receiver.messages()
        # A message every 250 ms (each window's first call and the held-back
        # latest one): 8 of them, each read once; the 92 others never.
        self.assertEqual([(m["value"]["loss"], m["mono_ns"]) for m in sent], [
            (0.0, ms(0)), (24.0, ms(240)), (25.0, ms(250)), (49.0, ms(490)), (50.0, ms(500)),
            (74.0, ms(740)), (75.0, ms(750)), (99.0, ms(990))])
        self.assertEqual(CountingTensor.items, len(sent))
        self.assertTrue(all(m["value"]["lr"] == 0.1 for m in sent))

    def test_the_module_function_takes_a_tensor(self):
        self.use_module_client()
        gpuwatch.log(loss=CountingTensor(0.25))
        self.assertEqual(self.receiver.messages(),
                         [{"kind": "log", "value": {"loss": 0.25}, "mono_ns": ms(0)}])

    def test_outside_gpuwatch_item_is_never_called(self):
        client = self.client(path="")
        for _ in range(10):
            client.log({"loss": CountingTensor(1.0)})
        client.flush()
        self.assertEqual(CountingTensor.items, 0)

    def test_tensors_of_several_elements_raise_at_the_call(self):
        client = self.client()
        with self.assertRaises(ValueError):
            client.log({"loss": CountingTensor(1.0, numel=8)})
        with self.assertRaises(ValueError):
            client.log({"acc": NumpyScalar(1.0, size=3)})
        with self.assertRaises(TypeError):
            client.log({"loss": "1.0"})  # str has no item(), and is no number
        self.assertEqual(self.receiver.messages(), [])
        self.assertEqual(CountingTensor.items, 0)

    def test_unreadable_nan_and_non_numbers_are_left_out_when_sent(self):
        client = self.client()
        client.log({"loss": CountingTensor(None), "acc": NumpyScalar(0.5)})  # item() raises
        self.clock.at_ms(1000)
        client.log({"loss": CountingTensor(math.nan), "acc": NumpyScalar(True)})
        self.clock.at_ms(2000)
        client.log({"loss": CountingTensor(7), "acc": NumpyScalar("x")})
        self.assertEqual([(m["value"], m["mono_ns"]) for m in self.receiver.messages()], [
            ({"acc": 0.5}, ms(0)), ({"loss": 7}, ms(2000))])

    def test_a_held_back_tensor_is_read_at_flush_and_at_an_epoch(self):
        client = self.client()
        client.log({"loss": CountingTensor(1.0)})
        self.clock.at_ms(100)
        client.log({"loss": CountingTensor(2.0)})
        self.assertEqual(CountingTensor.items, 1)
        self.clock.at_ms(150)
        client.epoch()
        self.assertEqual(CountingTensor.items, 2)
        self.assertEqual([(m["kind"], m["value"]) for m in self.receiver.messages()], [
            ("log", {"loss": 1.0}), ("log", {"loss": 2.0}), ("epoch", 1)])


class FakeGpu:
    """A CUDA device whose queued work completes only when the test says so."""

    def __init__(self):
        self.queued = 0  # work items queued (copies, events)
        self.completed = 0
        self.synchronizations = 0
        self.idle = False  # when True, work completes as soon as it is asked about
        self.current_stream = "default"  # torch.cuda.current_stream()
        self.copy_streams = []  # the stream current at each copy to the host
        self.capturing = False  # a CUDA graph is being captured

    def queue(self):
        self.queued += 1
        return self.queued

    def finish(self):
        self.completed = self.queued


class FakeHostTensor:
    """The pinned copy: reading it before the copy has landed would be a
    garbage value (or, through .item() on the GPU tensor, a sync)."""

    def __init__(self, gpu, value, seq):
        self.gpu, self.value, self.seq = gpu, value, seq

    def item(self):
        if self.gpu.completed < self.seq:
            raise AssertionError("read a host copy before its copy landed")
        return self.value


class FakeCudaTensor:
    is_cuda = True
    device = "cuda:0"

    def __init__(self, gpu, value, fail_copy=False):
        self.gpu, self.value, self.fail_copy = gpu, value, fail_copy

    def numel(self):
        return 1

    def detach(self):
        return self

    def item(self):
        raise AssertionError(".item() on a CUDA tensor synchronizes the GPU")

    def to(self, device, non_blocking=False):
        if device != "cpu" or not non_blocking:
            raise AssertionError("a blocking copy to the host synchronizes the GPU")
        self.gpu.copy_streams.append(self.gpu.current_stream)
        if self.fail_copy:
            raise RuntimeError("CUDA error: out of memory")
        return FakeHostTensor(self.gpu, self.value, self.gpu.queue())


def fake_torch(gpu):
    """The parts of torch the client may touch; synchronize() fails the test."""
    import types

    class Event:
        def __init__(self):
            self.seq = None

        def record(self, stream=None):
            self.seq = gpu.queue()

        def query(self):
            if gpu.idle:
                gpu.finish()
            return gpu.completed >= self.seq

        def synchronize(self):
            raise AssertionError("Event.synchronize() waits for the GPU")

    def synchronize(device=None):
        gpu.synchronizations += 1
        raise AssertionError("torch.cuda.synchronize() on the step path")

    import contextlib

    @contextlib.contextmanager
    def stream(s):
        before, gpu.current_stream = gpu.current_stream, s
        try:
            yield
        finally:
            gpu.current_stream = before

    cuda = types.SimpleNamespace(Event=Event, current_stream=lambda device=None: gpu.current_stream,
                                 stream=stream, synchronize=synchronize,
                                 is_current_stream_capturing=lambda: gpu.capturing)
    return types.SimpleNamespace(cuda=cuda)


class CudaTensorTest(SocketTestCase):
    """A CUDA tensor given to log() is copied without waiting and sent once
    its event says the copy landed: no .item() on it, no synchronize."""

    def setUp(self):
        super().setUp()
        import sys
        from unittest import mock
        self.gpu = FakeGpu()
        patcher = mock.patch.dict(sys.modules, {"torch": fake_torch(self.gpu)})
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_sent_when_its_copy_has_landed_with_the_time_of_its_call(self):
        client = self.client()
        client.log({"loss": FakeCudaTensor(self.gpu, 0.5), "lr": 0.1})
        self.assertEqual(self.receiver.messages(), [])  # the copy is queued, not done
        self.clock.at_ms(100)
        client.step()  # the GPU is still behind: nothing waits, nothing goes out
        self.assertEqual([m["kind"] for m in self.receiver.messages()], ["step"])
        self.gpu.finish()
        self.clock.at_ms(400)
        client.step()
        self.assertEqual(self.receiver.messages(), [
            {"kind": "log", "value": {"loss": 0.5, "lr": 0.1}, "mono_ns": ms(0)},
            {"kind": "step", "value": 2, "mono_ns": ms(400)}])

    def test_every_step_for_ten_seconds_never_synchronizes(self):
        client = self.client()
        sent = []
        for step in range(1000):
            self.clock.at_ms(step * 10)
            client.log({"loss": FakeCudaTensor(self.gpu, float(step))})
            if step % 20 == 19:
                self.gpu.finish()  # the GPU catches up now and then
                sent += self.receiver.messages()  # off the socket's short queue
        self.gpu.idle = True  # training is over: the last copy lands while close() waits
        client.close()
        logs = sent + self.receiver.messages()
        self.assertEqual(self.gpu.synchronizations, 0)
        # About 4 a second, as for numbers, each with its own call's value and time.
        self.assertGreaterEqual(len(logs), 70)
        self.assertLessEqual(len(logs), 82)
        for m in logs:
            self.assertEqual(m["mono_ns"], ms(int(m["value"]["loss"]) * 10))
        self.assertEqual(logs[-1]["value"]["loss"], 999.0)
        # Only the messages that went out were copied, not every call.
        self.assertLessEqual(self.gpu.queued, 2 * len(logs))

    def test_a_gpu_far_behind_costs_the_oldest_values_never_a_wait(self):
        from gpuwatch._client import MAX_IN_FLIGHT
        client = self.client()
        for step in range(40):  # 10 s, the GPU never done
            self.clock.at_ms(step * 250)
            client.log({"loss": FakeCudaTensor(self.gpu, float(step))})
        self.assertEqual(self.receiver.messages(), [])
        self.assertEqual(client.dropped_in_flight, 40 - MAX_IN_FLIGHT)
        self.gpu.finish()
        self.clock.at_ms(10_000)
        client.step()
        self.assertEqual([m["value"] for m in self.receiver.messages()],
                         [{"loss": 36.0}, {"loss": 37.0}, {"loss": 38.0}, {"loss": 39.0}, 1])

    def test_close_waits_at_most_its_bound_then_drops(self):
        import sys
        import time
        from unittest import mock
        client = self.client()
        client.log({"loss": FakeCudaTensor(self.gpu, 1.0)})
        # (gpuwatch._client by name is the package's function of that name)
        with mock.patch.object(sys.modules["gpuwatch._client"], "CLOSE_WAIT_S", 0.05):
            started = time.monotonic()
            client.close()
            self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(self.receiver.messages(), [])

    def test_close_sends_a_copy_that_lands(self):
        client = self.client()
        client.log({"loss": FakeCudaTensor(self.gpu, 2.0)})
        self.gpu.finish()
        client.close()
        self.assertEqual([m["value"] for m in self.receiver.messages()], [{"loss": 2.0}])

    def test_a_failed_copy_leaves_the_name_out(self):
        client = self.client()
        client.log({"loss": FakeCudaTensor(self.gpu, 1.0, fail_copy=True), "lr": 0.1})
        self.assertEqual([m["value"] for m in self.receiver.messages()], [{"lr": 0.1}])

    def test_a_later_message_waits_behind_one_in_flight(self):
        client = self.client()
        client.log({"loss": FakeCudaTensor(self.gpu, 1.0)})
        self.clock.at_ms(300)
        client.log({"loss": 2.0})  # a plain number, ready at once, but later
        self.assertEqual(self.receiver.messages(), [])
        self.gpu.finish()
        client.flush()
        self.clock.at_ms(600)
        client.log({"loss": 3.0})
        self.assertEqual([(m["value"]["loss"], m["mono_ns"]) for m in self.receiver.messages()],
                         [(1.0, ms(0)), (2.0, ms(300)), (3.0, ms(600))])

    def test_a_loaders_step_sends_a_landed_copy(self):
        import gpuwatch
        self.use_module_client()
        for index in gpuwatch.loader(range(3)):
            if index == 0:
                gpuwatch.log(loss=FakeCudaTensor(self.gpu, 4.0))
                self.gpu.finish()
            self.clock.now_ns += 10_000_000
        self.assertEqual([m["value"] for m in self.receiver.messages()],
                         [{"loss": 4.0}, {"data_wait_s": 0.0, "step_time_s": 0.03, "timed_steps": 3}])

    def test_cpu_tensors_still_go_out_at_once(self):
        client = self.client()
        client.log({"loss": CountingTensor(0.25)})
        self.assertEqual([m["value"] for m in self.receiver.messages()], [{"loss": 0.25}])
        self.assertEqual(self.gpu.queued, 0)

    def test_the_copy_follows_the_stream_that_computed_the_value(self):
        # log() inside `with torch.cuda.stream(s):`, the message due later, outside it.
        import torch
        client = self.client()
        with torch.cuda.stream("side"):
            client.log({"loss": FakeCudaTensor(self.gpu, 0.5)})
        self.clock.at_ms(100)
        client.step(1)
        self.assertEqual(self.gpu.copy_streams, ["side"])

    def test_no_copy_is_queued_into_a_graph_being_captured(self):
        client = self.client()
        self.gpu.capturing = True  # logged inside torch.cuda.graph(...)
        client.log({"loss": FakeCudaTensor(self.gpu, 0.5), "lr": 0.1})
        self.clock.at_ms(100)
        client.step(1)
        self.gpu.capturing = False
        self.assertEqual(self.gpu.copy_streams, [])
        self.clock.at_ms(1500)
        client.step(2)
        self.assertEqual(self.receiver.messages()[0]["value"], {"lr": 0.1})  # the loss left out
