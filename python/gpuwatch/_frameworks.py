"""What the framework callbacks share: turning a framework's metrics into
protocol-safe log calls. Metrics come from the framework, not from the user's
own code, so anything that does not fit is skipped instead of raised."""
import math
import numbers
import re

import gpuwatch
from gpuwatch._client import MAX_LOG_NAMES, MAX_NAME_BYTES

_NOT_NAME_CHAR = re.compile(r"[^A-Za-z0-9_.]")


def clean_name(name):
    """A protocol name for a framework's metric name ("val/loss" -> "val_loss")."""
    cleaned = _NOT_NAME_CHAR.sub("_", str(name))
    if not cleaned or not (cleaned[0].isalpha() or cleaned[0] == "_"):
        cleaned = "_" + cleaned
    return cleaned[:MAX_NAME_BYTES]


def scalar(value):
    """value as a finite float (numbers and one-element tensors), else None."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, numbers.Real):
        numel = getattr(value, "numel", None)
        item = getattr(value, "item", None)
        if numel is None or item is None:
            return None
        try:
            if numel() != 1:
                return None
            value = item()
        except Exception:  # a framework's odd object must not stop training
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return None
    as_float = float(value)
    return as_float if math.isfinite(as_float) else None


def log_metrics(metrics):
    """Logs the scalar entries of a name -> value mapping, 32 names a message."""
    values = {}
    for name, value in metrics.items():
        number = scalar(value)
        if number is not None:
            values[clean_name(name)] = number
    names = sorted(values)
    for first in range(0, len(names), MAX_LOG_NAMES):
        gpuwatch.log(**{name: values[name] for name in names[first:first + MAX_LOG_NAMES]})


class GpuMetricsSchedule:
    """log_gpu_metrics_every_n_steps of the callbacks: gpuwatch.metrics() at
    every n-th step (once per step, however many batches share it)."""

    def __init__(self, every_n_steps):
        if every_n_steps is None or every_n_steps is False:
            every_n_steps = 0
        if isinstance(every_n_steps, bool) or not isinstance(every_n_steps, numbers.Integral) or every_n_steps < 0:
            raise ValueError(
                f"log_gpu_metrics_every_n_steps: expected a whole number >= 0 (0: off), got {every_n_steps!r}")
        self.every = int(every_n_steps)
        self._last_step = None

    def due(self, step):
        """The metrics to log at this step: a non-empty dict, or None."""
        if not self.every or step is None or step % self.every != 0 or step == self._last_step:
            return None
        self._last_step = step
        metrics = gpuwatch.metrics()
        return metrics or None


def missing(feature, install):
    return ImportError(f"{feature} needs {install}; it is not installed in this Python")
