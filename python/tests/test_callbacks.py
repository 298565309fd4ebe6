"""The framework callbacks, driven by fake frameworks put into sys.modules
(neither Lightning nor transformers is needed to run these)."""
import importlib
import math
import sys
import types
import unittest
from unittest import mock

from gpuwatch import _frameworks

from tests.support import SocketTestCase, ms


class FakeTensor:
    def __init__(self, *values):
        self.values = values

    def numel(self):
        return len(self.values)

    def item(self):
        if len(self.values) != 1:
            raise ValueError("only one element tensors can be converted")
        return self.values[0]


class FakeModule:
    def parameters(self):
        return iter([FakeTensor(*range(6)), FakeTensor(1, 2)])


def fake_package(name, **attributes):
    module = types.ModuleType(name)
    module.__path__ = []
    module.__dict__.update(attributes)
    return module


class Callback:
    """What the frameworks' base classes look like to a subclass."""


def import_fresh(module_name, fake_modules):
    """Imports module_name with fake_modules in sys.modules; both are gone again afterwards."""
    with mock.patch.dict(sys.modules, fake_modules):
        sys.modules.pop(module_name, None)
        return importlib.import_module(module_name)


def summary(messages):
    return [(m["kind"], m["value"]) for m in messages]


class CallbackTestCase(SocketTestCase):
    def setUp(self):
        super().setUp()
        self.use_module_client()
        # No torch here: log_torch_memory() must be a no-op, not an ImportError.
        patcher = mock.patch.dict(sys.modules, {"torch": None})
        patcher.start()
        self.addCleanup(patcher.stop)
        self.received = []

    def hook(self, call):
        """Runs one hook a second after the previous, so throttling stays out
        of the way, and takes what it sent off the socket's short queue."""
        self.clock.now_ns += 1_000_000_000
        call()
        self.received += self.receiver.messages()


class LightningTest(CallbackTestCase):
    def lightning(self, fakes):
        module = import_fresh("gpuwatch.lightning", fakes)
        return module.GpuwatchCallback()

    def test_a_fit_and_a_test(self):
        pytorch = fake_package("lightning.pytorch", Callback=Callback)
        callback = self.lightning({"lightning": fake_package("lightning", pytorch=pytorch),
                                   "lightning.pytorch": pytorch})
        self.assertIsInstance(callback, Callback)
        trainer = types.SimpleNamespace(global_step=0, current_epoch=0, callback_metrics={})
        module = FakeModule()
        self.hook(lambda: callback.on_fit_start(trainer, module))
        self.hook(lambda: callback.on_validation_start(trainer, module))  # the sanity check
        self.hook(lambda: callback.on_validation_end(trainer, module))
        self.hook(lambda: callback.on_train_epoch_start(trainer, module))
        trainer.global_step = 1
        self.hook(lambda: callback.on_train_batch_end(trainer, module, {"loss": 1}, None, 0))
        trainer.global_step = 2
        self.hook(lambda: callback.on_train_batch_end(trainer, module, {"loss": 1}, None, 1))
        self.hook(lambda: callback.on_validation_start(trainer, module))
        self.hook(lambda: callback.on_validation_end(trainer, module))
        trainer.callback_metrics = {"val/loss": FakeTensor(0.25), "acc": 0.5, "best": True,
                                    "hist": FakeTensor(1.0, 2.0), "nan": math.nan, "note": "x"}
        self.hook(lambda: callback.on_train_epoch_end(trainer, module))
        trainer.current_epoch = 1
        self.hook(lambda: callback.on_train_epoch_start(trainer, module))
        self.hook(lambda: callback.on_train_end(trainer, module))
        self.hook(lambda: callback.on_test_start(trainer, module))
        trainer.callback_metrics = {"test_loss": FakeTensor(0.5)}
        self.hook(lambda: callback.on_test_end(trainer, module))
        self.assertEqual(summary(self.received), [
            ("log", {"model_params": 8}),
            ("phase", "val"), ("phase", None),
            ("epoch", 1), ("phase", "train"),
            ("step", 1), ("step", 2),
            ("phase", "val"), ("phase", "train"),
            ("log", {"acc": 0.5, "val_loss": 0.25}),
            ("epoch", 2), ("phase", "train"),
            ("phase", None),
            ("phase", "test"), ("log", {"test_loss": 0.5}), ("phase", None),
        ])

    def test_falls_back_to_pytorch_lightning(self):
        callback = self.lightning({"lightning": None, "lightning.pytorch": None,
                                   "pytorch_lightning": fake_package("pytorch_lightning", Callback=Callback)})
        self.assertIsInstance(callback, Callback)

    def test_says_what_is_missing(self):
        with self.assertRaisesRegex(ImportError, "PyTorch Lightning"):
            self.lightning({"lightning": None, "lightning.pytorch": None, "pytorch_lightning": None})


class HuggingFaceTest(CallbackTestCase):
    def huggingface(self, fakes):
        module = import_fresh("gpuwatch.huggingface", fakes)
        return module.GpuwatchCallback()

    def test_a_training_with_evaluation(self):
        callback = self.huggingface({"transformers": fake_package("transformers", TrainerCallback=Callback)})
        self.assertIsInstance(callback, Callback)
        state = types.SimpleNamespace(global_step=0, epoch=0.0)
        args, control = object(), object()
        self.hook(lambda: callback.on_train_begin(args, state, control, model=FakeModule()))
        self.hook(lambda: callback.on_epoch_begin(args, state, control))
        state.global_step = 1
        self.hook(lambda: callback.on_step_end(args, state, control))
        self.hook(lambda: callback.on_log(args, state, control, logs={
            "loss": 0.5, "learning_rate": 1e-4, "epoch": 0.5, "train/runtime": 3, "note": "x", "flag": False}))
        self.hook(lambda: callback.on_prediction_step(args, state, control))
        self.hook(lambda: callback.on_prediction_step(args, state, control))
        self.hook(lambda: callback.on_log(args, state, control, logs={"eval_loss": 0.75}))
        self.hook(lambda: callback.on_evaluate(args, state, control, metrics={"eval_loss": 0.75}))
        state.epoch = 1.0
        self.hook(lambda: callback.on_epoch_end(args, state, control))
        self.hook(lambda: callback.on_epoch_begin(args, state, control))
        state.epoch = None
        self.hook(lambda: callback.on_epoch_begin(args, state, control))
        self.hook(lambda: callback.on_train_end(args, state, control))
        self.hook(lambda: callback.on_prediction_step(args, state, control))
        self.hook(lambda: callback.on_predict(args, state, control, metrics={}))
        self.assertEqual(summary(self.received), [
            ("log", {"model_params": 8}), ("phase", "train"),
            ("epoch", 1),
            ("step", 1),
            ("log", {"epoch": 0.5, "learning_rate": 1e-4, "loss": 0.5, "train_runtime": 3.0}),
            ("phase", "val"),
            ("log", {"eval_loss": 0.75}),
            ("phase", "train"),
            ("epoch", 2),
            ("epoch", 3),  # the Trainer did not say: counted on
            ("phase", None),
            ("phase", "val"), ("phase", None),
        ])

    def test_says_what_is_missing(self):
        with self.assertRaisesRegex(ImportError, "transformers"):
            self.huggingface({"transformers": None})


def step_times(messages):
    return [(round(m["value"]["data_wait_s"], 6), round(m["value"]["step_time_s"], 6),
             m["value"]["timed_steps"], m["mono_ns"])
            for m in messages if m["kind"] == "log" and "timed_steps" in m["value"]]


class StepTimeCallbackTest(CallbackTestCase):
    """The callbacks time each step from their hooks: its wait is the fetch
    before the batch starts; validation, logging and saving are no step's."""

    def at(self, t_ms, call):
        self.clock.at_ms(t_ms)
        call()
        self.received += self.receiver.messages()

    def test_lightning(self):
        pytorch = fake_package("lightning.pytorch", Callback=Callback)
        module = import_fresh("gpuwatch.lightning", {"lightning": fake_package("lightning", pytorch=pytorch),
                                                     "lightning.pytorch": pytorch})
        callback = module.GpuwatchCallback()
        trainer = types.SimpleNamespace(global_step=0, current_epoch=0, callback_metrics={})
        pl_module = FakeModule()
        self.at(0, lambda: callback.on_train_epoch_start(trainer, pl_module))
        self.at(30, lambda: callback.on_train_batch_start(trainer, pl_module, None, 0))
        self.at(100, lambda: callback.on_train_batch_end(trainer, pl_module, {}, None, 0))
        self.at(150, lambda: callback.on_train_batch_start(trainer, pl_module, None, 1))
        self.at(200, lambda: callback.on_train_batch_end(trainer, pl_module, {}, None, 1))
        self.at(210, lambda: callback.on_validation_start(trainer, pl_module))  # 4.8 s of validation
        self.at(5000, lambda: callback.on_validation_end(trainer, pl_module))
        self.at(5020, lambda: callback.on_train_batch_start(trainer, pl_module, None, 2))
        self.at(5100, lambda: callback.on_train_batch_end(trainer, pl_module, {}, None, 2))
        self.at(5200, lambda: callback.on_train_epoch_end(trainer, pl_module))
        # The phase "val" is a boundary: the steps before it went out then.
        self.assertEqual(step_times(self.received), [(0.08, 0.2, 2, ms(200)), (0.02, 0.1, 1, ms(5100))])

    def huggingface(self, **kwargs):
        module = import_fresh("gpuwatch.huggingface", {"transformers": fake_package("transformers",
                                                                                    TrainerCallback=Callback)})
        return module.GpuwatchCallback(**kwargs)

    def hf_epoch(self, callback):
        state = types.SimpleNamespace(global_step=0, epoch=0.0)
        args = control = None
        self.at(0, lambda: callback.on_epoch_begin(args, state, control))
        self.at(40, lambda: callback.on_step_begin(args, state, control))
        self.at(100, lambda: callback.on_step_end(args, state, control))
        self.at(300, lambda: callback.on_log(args, state, control, logs={"loss": 0.5}))  # logging took 0.2 s
        self.at(310, lambda: callback.on_step_begin(args, state, control))
        self.at(400, lambda: callback.on_step_end(args, state, control))
        self.at(410, lambda: callback.on_prediction_step(args, state, control))
        self.at(3000, lambda: callback.on_evaluate(args, state, control, metrics={}))
        self.at(3500, lambda: callback.on_save(args, state, control))
        self.at(3530, lambda: callback.on_step_begin(args, state, control))
        self.at(3600, lambda: callback.on_step_end(args, state, control))
        self.at(3700, lambda: callback.on_epoch_end(args, state, control))

    def test_huggingface(self):
        self.hf_epoch(self.huggingface())
        # The evaluation's phase "val" is a boundary: the steps before it went out then.
        self.assertEqual(step_times(self.received), [(0.05, 0.2, 2, ms(400)), (0.03, 0.1, 1, ms(3600))])

    def test_huggingface_step_begin_again_per_micro_batch(self):
        callback = self.huggingface()
        state = types.SimpleNamespace(global_step=0, epoch=0.0)
        self.at(0, lambda: callback.on_epoch_begin(None, state, None))
        self.at(50, lambda: callback.on_step_begin(None, state, None))
        self.at(90, lambda: callback.on_step_begin(None, state, None))  # the second micro-batch
        self.at(200, lambda: callback.on_step_end(None, state, None))
        self.at(210, lambda: callback.on_epoch_end(None, state, None))
        self.assertEqual(step_times(self.received), [(0.05, 0.2, 1, ms(200))])

    def test_a_callback_added_mid_epoch_times_from_the_next_step(self):
        callback = self.huggingface()
        state = types.SimpleNamespace(global_step=0, epoch=0.0)
        self.at(50, lambda: callback.on_step_begin(None, state, None))  # no known start: untimed
        self.at(100, lambda: callback.on_step_end(None, state, None))
        self.at(130, lambda: callback.on_step_begin(None, state, None))
        self.at(200, lambda: callback.on_step_end(None, state, None))
        self.at(210, lambda: callback.on_epoch_end(None, state, None))
        self.assertEqual(step_times(self.received), [(0.03, 0.1, 1, ms(200))])

    def test_huggingface_without_timing(self):
        self.hf_epoch(self.huggingface(time_steps=False))
        self.assertEqual(step_times(self.received), [])
        self.assertIn(("log", {"loss": 0.5}), summary(self.received))


GPU_VALUES = {"gpu_total_memory": 1.5, "gpu_0_utilization": 40.0}


class FakeLogger:
    def __init__(self):
        self.logged = []

    def log_metrics(self, metrics, step=None):
        self.logged.append((metrics, step))


class GpuMetricsCallbackTest(CallbackTestCase):
    def setUp(self):
        super().setUp()
        patcher = mock.patch("gpuwatch.metrics", return_value=dict(GPU_VALUES))
        self.metrics = patcher.start()
        self.addCleanup(patcher.stop)

    def lightning_callback(self, **kwargs):
        pytorch = fake_package("lightning.pytorch", Callback=Callback)
        module = import_fresh("gpuwatch.lightning", {"lightning": fake_package("lightning", pytorch=pytorch),
                                                     "lightning.pytorch": pytorch})
        return module.GpuwatchCallback(**kwargs)

    def huggingface_callback(self, **kwargs):
        module = import_fresh("gpuwatch.huggingface", {"transformers": fake_package("transformers",
                                                                                    TrainerCallback=Callback)})
        return module.GpuwatchCallback(**kwargs)

    def test_lightning_logs_to_every_logger_every_n_steps_once_a_step(self):
        callback = self.lightning_callback(log_gpu_metrics_every_n_steps=2)
        loggers = [FakeLogger(), FakeLogger()]
        trainer = types.SimpleNamespace(global_step=0, current_epoch=0, callback_metrics={}, loggers=loggers)
        for step in [1, 2, 2, 3, 4]:  # two batches of step 2 (gradient accumulation)
            trainer.global_step = step
            callback.on_train_batch_end(trainer, FakeModule(), {}, None, 0)
        for logger in loggers:
            self.assertEqual(logger.logged, [(GPU_VALUES, 2), (GPU_VALUES, 4)])
        self.assertEqual(self.metrics.call_count, 2)

    def test_lightning_with_a_single_logger_or_none(self):
        callback = self.lightning_callback(log_gpu_metrics_every_n_steps=1)
        logger = FakeLogger()
        trainer = types.SimpleNamespace(global_step=1, logger=logger)
        callback.on_train_batch_end(trainer, FakeModule(), {}, None, 0)
        self.assertEqual(logger.logged, [(GPU_VALUES, 1)])
        trainer = types.SimpleNamespace(global_step=2, logger=None)
        callback.on_train_batch_end(trainer, FakeModule(), {}, None, 0)  # nowhere to log: nothing happens

    def test_off_by_default_and_empty_metrics_are_not_logged(self):
        logger = FakeLogger()
        trainer = types.SimpleNamespace(global_step=1, loggers=[logger])
        self.lightning_callback().on_train_batch_end(trainer, FakeModule(), {}, None, 0)
        self.metrics.return_value = {}
        self.lightning_callback(log_gpu_metrics_every_n_steps=1).on_train_batch_end(trainer, FakeModule(), {}, None, 0)
        self.assertEqual(logger.logged, [])
        self.assertEqual(self.metrics.call_count, 1)

    def test_bad_settings_raise(self):
        for bad in [-1, 1.5, "2", True]:
            with self.assertRaises(ValueError):
                self.lightning_callback(log_gpu_metrics_every_n_steps=bad)
        with self.assertRaisesRegex(ValueError, "trainer"):
            self.huggingface_callback(log_gpu_metrics_every_n_steps=5)

    def test_huggingface_logs_through_the_trainer(self):
        callback = None

        class FakeTrainer:
            def __init__(self):
                self.logged = []

            def log(self, logs):
                self.logged.append(logs)
                # The Trainer hands its logs to every callback: not back to gpuwatch.
                callback.on_log(None, state, None, logs=logs)

        trainer = FakeTrainer()
        callback = self.huggingface_callback(log_gpu_metrics_every_n_steps=3, trainer=trainer)
        state = types.SimpleNamespace(global_step=0, epoch=0.0)
        for step in range(1, 7):
            state.global_step = step
            self.hook(lambda: callback.on_step_end(None, state, None))
        self.assertEqual(trainer.logged, [GPU_VALUES, GPU_VALUES])
        self.assertEqual([kind for kind, _ in summary(self.received)], ["step"] * 6)


class FrameworkMetricsTest(CallbackTestCase):
    def test_names_are_made_protocol_safe(self):
        self.assertEqual(_frameworks.clean_name("val/loss"), "val_loss")
        self.assertEqual(_frameworks.clean_name("lr-AdamW"), "lr_AdamW")
        self.assertEqual(_frameworks.clean_name("top.5"), "top.5")
        self.assertEqual(_frameworks.clean_name("5x"), "_5x")
        self.assertEqual(_frameworks.clean_name(""), "_")
        self.assertEqual(len(_frameworks.clean_name("n" * 100)), 64)

    def test_many_metrics_go_out_32_names_a_message(self):
        _frameworks.log_metrics({f"m{i:02d}": i for i in range(40)})
        sent = [m["value"] for m in self.receiver.messages()]
        self.assertEqual([len(values) for values in sent], [32, 8])
        self.assertEqual(sent[1]["m39"], 39.0)


if __name__ == "__main__":
    unittest.main()
