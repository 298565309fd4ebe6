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
