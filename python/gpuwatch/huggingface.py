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

The step's own time is measured from the callback events, on the host clock
(never the GPU): an optimizer step runs from the end of the step before it
(or the epoch's start, or the end of the logging, saving or evaluation that
followed it) to its on_step_end; its data wait is the part before its
on_step_begin, where the Trainer fetches the step's batches through its
(accelerate-prepared) DataLoader. That fetch also moves them to the GPU, and
with the Trainer's default blocking copy the move waits for the GPU to finish
the work queued before it: docs/python.md says what that means for the wait.
time_steps=False turns the measurement off.
"""
import gpuwatch
from gpuwatch import _frameworks, _steps

try:
    from transformers import TrainerCallback as _TrainerCallback
except ImportError:
    raise _frameworks.missing(
        "gpuwatch.huggingface", "transformers (pip install transformers)") from None


class GpuwatchCallback(_TrainerCallback):
    def __init__(self, log_gpu_metrics_every_n_steps=0, trainer=None, time_steps=True):
        super().__init__()
        self._timer = _steps.HookTimer(gpuwatch._client) if time_steps else None
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
        if self._timer:
            self._timer.fetch_started()  # the epoch's first fetch (workers starting) counts

    def on_epoch_end(self, args, state, control, **kwargs):
        if self._timer:
            self._timer.epoch_ended()
        gpuwatch.log_torch_memory()

    def on_step_begin(self, args, state, control, **kwargs):
        if self._timer:
            self._timer.batch_started()

    def on_step_end(self, args, state, control, **kwargs):
        if self._timer:
            self._timer.batch_ended()
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
        self._restart_fetch()

    def on_save(self, args, state, control, **kwargs):
        self._restart_fetch()

    def _restart_fetch(self):
        # Logging, saving and evaluating come after on_step_end, before the
        # next fetch: their time is no wait for data.
        if self._timer:
            self._timer.restart_fetch()

    # The Trainer has no hook before evaluation; its first prediction step
    # is the earliest moment the callback hears of it.
    def on_prediction_step(self, args, state, control, **kwargs):
        if not self._evaluating:
            self._evaluating = True
            gpuwatch.phase("val")

    def on_evaluate(self, args, state, control, **kwargs):
        self._end_evaluation()
        self._restart_fetch()

    def on_predict(self, args, state, control, **kwargs):
        self._end_evaluation()

    def _end_evaluation(self):
        if self._evaluating:
            self._evaluating = False
            gpuwatch.phase("train" if self._training else None)
