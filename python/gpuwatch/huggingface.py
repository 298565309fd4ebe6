"""gpuwatch annotations from the Hugging Face transformers Trainer:

    from gpuwatch.huggingface import GpuwatchCallback
    trainer = Trainer(..., callbacks=[GpuwatchCallback()])

Steps are state.global_step, epochs int(state.epoch) + 1 (or counted when the
Trainer does not say), the numeric entries of every log go to gpuwatch.log,
evaluation is the phase "val", and PyTorch's memory counters are logged at
the end of each epoch.

With log_gpu_metrics_every_n_steps=N and the trainer, gpuwatch.metrics() (the
recorder's GPU memory, utilization, power...) goes through trainer.log() to
every logger the Trainer reports to (report_to: W&B, TensorBoard, trackio...)
every N global steps:

    trainer.add_callback(GpuwatchCallback(log_gpu_metrics_every_n_steps=50, trainer=trainer))
"""
import gpuwatch
from gpuwatch import _frameworks

try:
    from transformers import TrainerCallback as _TrainerCallback
except ImportError:
    raise _frameworks.missing(
        "gpuwatch.huggingface", "transformers (pip install transformers)") from None


class GpuwatchCallback(_TrainerCallback):
    def __init__(self, log_gpu_metrics_every_n_steps=0, trainer=None):
        super().__init__()
        self._training = False
        self._evaluating = False
        self._gpu_metrics = _frameworks.GpuMetricsSchedule(log_gpu_metrics_every_n_steps)
        self._logging_gpu_metrics = False
        # A callback hears of no trainer: its log() is what reaches report_to.
        if self._gpu_metrics.every and trainer is None:
            raise ValueError("log_gpu_metrics_every_n_steps needs the trainer: GpuwatchCallback(..., trainer=trainer)")
        self._trainer = trainer

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self._training = True
        if model is not None and hasattr(model, "parameters"):
            gpuwatch.model(module=model)
        gpuwatch.phase("train")

    def on_train_end(self, args, state, control, **kwargs):
        self._training = False
        gpuwatch.phase(None)

    def on_epoch_begin(self, args, state, control, **kwargs):
        if state.epoch is None:
            gpuwatch.epoch()
        else:
            gpuwatch.epoch(int(state.epoch) + 1)

    def on_epoch_end(self, args, state, control, **kwargs):
        gpuwatch.log_torch_memory()

    def on_step_end(self, args, state, control, **kwargs):
        gpuwatch.step(state.global_step)
        metrics = self._gpu_metrics.due(state.global_step)
        if metrics:
            self._logging_gpu_metrics = True
            try:
                self._trainer.log(metrics)
            finally:
                self._logging_gpu_metrics = False

    def on_log(self, args, state, control, logs=None, **kwargs):
        # The recorder's own values need not go back to it.
        if logs and not self._logging_gpu_metrics:
            _frameworks.log_metrics(logs)

    # The Trainer has no hook before evaluation; its first prediction step
    # is the earliest moment the callback hears of it.
    def on_prediction_step(self, args, state, control, **kwargs):
        if not self._evaluating:
            self._evaluating = True
            gpuwatch.phase("val")

    def on_evaluate(self, args, state, control, **kwargs):
        self._end_evaluation()

    def on_predict(self, args, state, control, **kwargs):
        self._end_evaluation()

    def _end_evaluation(self):
        if self._evaluating:
            self._evaluating = False
            gpuwatch.phase("train" if self._training else None)
