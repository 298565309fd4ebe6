"""gpuwatch annotations from PyTorch Lightning:

    from gpuwatch.lightning import GpuwatchCallback
    trainer = Trainer(callbacks=[GpuwatchCallback()])

Steps are trainer.global_step, epochs trainer.current_epoch + 1 (counted from
1 like gpuwatch.epoch()), phases train/val/test follow the loops, and at the
end of each training epoch the scalar callback_metrics and PyTorch's memory
counters are logged (the metrics again at the end of a test).

GpuwatchCallback(log_gpu_metrics_every_n_steps=N) also logs gpuwatch.metrics()
(the recorder's GPU memory, utilization, power...) to the trainer's loggers
(trainer.loggers: TensorBoard, W&B, CSV...) every N global steps.

The step's own time is measured from the hooks, on the host clock (never
the GPU): a training batch's step runs from the end of the batch before it
(or the epoch's start, or the end of a validation) to its
on_train_batch_end, and its data wait is the part before its
on_train_batch_start, where Lightning fetches the batch (docs/python.md).
"""
import gpuwatch
from gpuwatch import _frameworks, _steps


def _import_lightning():
    try:
        import lightning.pytorch as pl
    except ImportError:
        try:
            import pytorch_lightning as pl
        except ImportError:
            raise _frameworks.missing(
                "gpuwatch.lightning", "PyTorch Lightning (pip install lightning)") from None
    return pl


_pl = _import_lightning()


class GpuwatchCallback(_pl.Callback):
    def __init__(self, log_gpu_metrics_every_n_steps=0):
        super().__init__()
        self._training = False
        self._gpu_metrics = _frameworks.GpuMetricsSchedule(log_gpu_metrics_every_n_steps)
        self._timer = _steps.HookTimer(gpuwatch._client)

    def on_fit_start(self, trainer, pl_module):
        gpuwatch.model(module=pl_module)

    def on_train_epoch_start(self, trainer, pl_module):
        self._training = True
        gpuwatch.epoch(trainer.current_epoch + 1)
        gpuwatch.phase("train")
        self._timer.fetch_started()  # the epoch's first fetch (workers starting) counts

    def on_train_batch_start(self, trainer, pl_module, *args, **kwargs):
        self._timer.batch_started()

    def on_train_batch_end(self, trainer, pl_module, *args, **kwargs):
        self._timer.batch_ended()
        gpuwatch.step(trainer.global_step)
        metrics = self._gpu_metrics.due(trainer.global_step)
        if metrics:
            loggers = getattr(trainer, "loggers", None)
            if loggers is None:
                loggers = [trainer.logger] if getattr(trainer, "logger", None) is not None else []
            for logger in loggers:
                logger.log_metrics(metrics, step=trainer.global_step)

    def on_train_epoch_end(self, trainer, pl_module):
        self._timer.epoch_ended()
        _frameworks.log_metrics(trainer.callback_metrics)
        gpuwatch.log_torch_memory()

    def on_train_end(self, trainer, pl_module):
        self._training = False
        gpuwatch.phase(None)

    def on_validation_start(self, trainer, pl_module):
        self._timer.paused()  # validation is no fetch of a training batch
        gpuwatch.phase("val")

    def on_validation_end(self, trainer, pl_module):
        # Validation inside fit interrupts a training epoch: go back to it.
        gpuwatch.phase("train" if self._training else None)
        if self._training:
            self._timer.fetch_started()

    def on_test_start(self, trainer, pl_module):
        gpuwatch.phase("test")

    def on_test_end(self, trainer, pl_module):
        _frameworks.log_metrics(trainer.callback_metrics)
        gpuwatch.phase(None)
