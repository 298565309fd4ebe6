"""gpuwatch.loader(): the wait for each batch and each step's time, on the
host clock, sent as data_wait_s / step_time_s / timed_steps about once a second."""
import os

import gpuwatch
from gpuwatch import _steps

from tests.support import SocketTestCase, ms


class FakeLoader:
    """A DataLoader on the fake clock: each batch takes wait_ms to arrive,
    and the end of the data (StopIteration) end_ms."""

    def __init__(self, clock, waits_ms, end_ms=0):
        self.clock = clock
        self.waits_ms = waits_ms
        self.end_ms = end_ms
        self.batch_size = 32

    def __iter__(self):
        for index, wait_ms in enumerate(self.waits_ms):
            self.clock.now_ns += wait_ms * 1_000_000
            yield index
        self.clock.now_ns += self.end_ms * 1_000_000

    def __len__(self):
        return len(self.waits_ms)


class Unsized:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def step_times(messages):
    """(data_wait_s, step_time_s, timed_steps, mono_ns) of the step-time messages."""
    return [(round(m["value"]["data_wait_s"], 6), round(m["value"]["step_time_s"], 6),
             m["value"]["timed_steps"], m["mono_ns"])
            for m in messages if m["kind"] == "log" and "timed_steps" in m["value"]]


class LoaderTest(SocketTestCase):
    def setUp(self):
        super().setUp()
        self.use_module_client()

    def train(self, loader, compute_ms):
        """The loop body: compute_ms of work per batch."""
        batches = []
        for batch in loader:
            batches.append(batch)
            self.clock.now_ns += compute_ms * 1_000_000
        return batches

    def test_wait_and_step_time_go_out_once_a_second(self):
        # 30 steps: 10 ms waiting for the batch, 90 ms of work each; the end
        # of the data takes 500 ms more, which is no step's.
        batches = self.train(gpuwatch.loader(FakeLoader(self.clock, [10] * 30, end_ms=500)), compute_ms=90)
        self.assertEqual(batches, list(range(30)))
        # Each message covers the steps since the one before; its time is
        # the end of its last step (the next call of next()).
        self.assertEqual(step_times(self.receiver.messages()), [
            (0.1, 1.0, 10, ms(1000)), (0.1, 1.0, 10, ms(2000)), (0.1, 1.0, 10, ms(3000))])

    def test_the_end_of_an_iteration_sends_unless_too_close_to_the_last(self):
        loader = gpuwatch.loader(FakeLoader(self.clock, [40] * 15))
        self.train(loader, compute_ms=60)  # steps 11-15 end at 1.5 s: too close to 1.0 s
        self.assertEqual(step_times(self.receiver.messages()), [(0.4, 1.0, 10, ms(1000))])
        self.clock.now_ns += 2_000_000_000  # validation, not timed
        # The second epoch: its first step takes the held ones along (the
        # recorder would let a message less than a second after the one
        # before be replaced by the next, and with it their steps).
        self.train(loader, compute_ms=60)
        self.assertEqual(step_times(self.receiver.messages()), [(0.24, 0.6, 6, ms(3600)), (0.4, 1.0, 10, ms(4600))])
        gpuwatch._client().close()  # at exit or close, whatever is held goes out
        self.assertEqual(step_times(self.receiver.messages()), [(0.16, 0.4, 4, ms(5000))])

    def test_a_short_first_epoch_goes_out_at_its_end(self):
        self.train(gpuwatch.loader(FakeLoader(self.clock, [5, 5, 5])), compute_ms=20)
        self.assertEqual(step_times(self.receiver.messages()), [(0.015, 0.075, 3, ms(75))])

    def test_an_epoch_boundary_sends_the_steps_before_it_when_it_may(self):
        loader = gpuwatch.loader(FakeLoader(self.clock, [1] * 1000))
        for index, _ in enumerate(loader):
            self.clock.now_ns += 9_000_000
            if index in (50, 170):  # epochs counted by the script, in the middle of the loader
                gpuwatch.epoch()
            if index == 250:
                break
        sent = self.receiver.messages()
        # Epoch 1's 50 whole steps (the 51st is under way) went out before
        # epoch 2; epoch 3 began 0.2 s after a message: its steps go out
        # with the next one, a second after the one before.
        self.assertEqual([m["kind"] for m in sent], ["log", "epoch", "log", "epoch", "log"])
        self.assertEqual(step_times(sent), [(0.05, 0.5, 50, ms(500)), (0.1, 1.0, 100, ms(1500)),
                                            (0.1, 1.0, 100, ms(2500))])

    def test_the_stop_of_the_data_ends_the_last_step(self):
        self.train(gpuwatch.loader(FakeLoader(self.clock, [300, 300], end_ms=5000)), compute_ms=700)
        self.assertEqual(step_times(self.receiver.messages()), [(0.3, 1.0, 1, ms(1000)), (0.3, 1.0, 1, ms(2000))])

    def test_a_loader_keeps_its_length_and_attributes(self):
        fake = FakeLoader(self.clock, [1, 1, 1])
        wrapped = gpuwatch.loader(fake)
        self.assertEqual(len(wrapped), 3)
        self.assertEqual(wrapped.batch_size, 32)
        self.assertEqual(list(gpuwatch.loader([4, 5, 6])), [4, 5, 6])
        unsized = gpuwatch.loader(Unsized([1, 2]))
        self.assertFalse(hasattr(unsized, "__len__"))
        with self.assertRaises(TypeError):
            len(unsized)
        with self.assertRaises(AttributeError):
            unsized.batch_size
        self.assertEqual(list(unsized), [1, 2])

    def test_a_non_iterable_raises_with_or_without_gpuwatch(self):
        for bad in [5, None, "abc"]:
            with self.assertRaisesRegex(TypeError, "gpuwatch.loader"):
                gpuwatch.loader(bad)

    def test_a_failing_loader_raises_its_own_error(self):
        def broken():
            yield 1
            raise RuntimeError("worker died")
        with self.assertRaisesRegex(RuntimeError, "worker died"):
            self.train(gpuwatch.loader(broken()), compute_ms=1)


class ForkedChildTest(SocketTestCase):
    def test_a_child_sends_none_of_its_parents_steps(self):
        self.use_module_client()
        client = gpuwatch._default
        for _ in gpuwatch.loader(FakeLoader(self.clock, [10] * 5)):
            self.clock.now_ns += 10_000_000
        # 5 steps of 20 ms: the end of the first iteration sends them.
        self.assertEqual(step_times(self.receiver.messages()), [(0.05, 0.1, 5, ms(100))])
        for _ in gpuwatch.loader(FakeLoader(self.clock, [10] * 5)):
            self.clock.now_ns += 10_000_000
        # These 5 are held (0.1 s after the message before); a forked child
        # (a DataLoader worker) must not send them too.
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                client.close()
                status = 0
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.WEXITSTATUS(status), 0)
        self.assertEqual(self.receiver.messages(), [])
        client.close()
        self.assertEqual(step_times(self.receiver.messages()), [(0.05, 0.1, 5, ms(200))])


class OutsideRecordTest(SocketTestCase):
    def test_the_loaders_own_iterator_is_used(self):
        gpuwatch._default = self.client(path="")
        items = [1, 2, 3]
        wrapped = gpuwatch.loader(items)
        self.assertIs(type(iter(wrapped)), type(iter(items)))  # nothing between the loop and the loader
        self.assertEqual(list(wrapped), items)
        self.assertEqual(len(wrapped), 3)

    def test_the_client_ignores_step_times(self):
        client = self.client(path="")
        client.time_step(1, 2, 3)
        client.end_steps()
        client.close()
        self.assertEqual(self.receiver.messages(), [])


class StepTimesTest(SocketTestCase):
    def test_spacing(self):
        times = _steps.StepTimes()
        self.assertFalse(times.due())
        self.assertFalse(times.may_send())
        times.add(10, 400_000_000, 1_400_000_000)  # a step from 1.0 s to 1.4 s
        self.assertFalse(times.due())
        self.assertTrue(times.may_send())  # nothing sent yet: an iteration's end may send it
        times.add(10, 600_000_000, 2_000_000_000)
        self.assertTrue(times.due())
        self.assertEqual(times.take(), {"kind": "log", "mono_ns": 2_000_000_000, "value": {
            "data_wait_s": 2e-8, "step_time_s": 1.0, "timed_steps": 2}})
        times.add(0, 999_999_999, 2_999_999_999)
        self.assertFalse(times.due())
        self.assertFalse(times.may_send())
        times.add(0, 1, 3_000_000_000)
        self.assertTrue(times.due())
