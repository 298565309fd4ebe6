"""Numbers given to log() as tensors, read without making the training wait.

A value with .item() (a one-element tensor, a numpy scalar) is kept as it is
and read only when its message goes out (a few a second). On a CUDA tensor
even that .item() would wait for every kernel queued before it, so a CUDA
tensor is copied instead: when its message is due, a non-blocking copy to
pinned host memory is queued on the stream that was current when log() was
called (the one computing the value) with a CUDA event after it, and the message goes out at the first later call that finds the event
done (event.query(): asks, never waits). Only close() and the exit wait for
it, at most a second.
"""
import contextlib
import numbers


class Deferred:
    """A CPU tensor, a numpy value: .item() when sent (it waits for nothing)."""

    __slots__ = ("source",)

    def __init__(self, source):
        self.source = source

    def start(self):
        """Starts what reading needs (nothing here)."""

    def ready(self):
        return True

    def read(self):
        """The number, or None when it is none (or .item() fails: sending never raises)."""
        return _number(self.source)


class GpuDeferred:
    """A one-element CUDA tensor: copied to the host without waiting, read
    once the copy is done."""

    __slots__ = ("source", "stream", "host", "event")

    def __init__(self, source):
        self.source = source
        # The stream that computes the value, taken now: the copy is queued
        # later, when the message is due, perhaps outside the caller's
        # `with torch.cuda.stream(s):`, and must follow those kernels.
        self.stream = _current_stream(source)
        self.host = None
        self.event = None

    def start(self):
        """Queues the copy and its event (once). Nothing here waits for the GPU."""
        source, self.source = self.source, None
        if source is None:
            return
        try:
            import torch  # already imported: the tensor is torch's

            cuda = torch.cuda
            capturing = getattr(cuda, "is_current_stream_capturing", None)
            if callable(capturing) and capturing():
                return  # a copy queued into a CUDA graph being captured would break it: left out
            stream = self.stream if self.stream is not None else cuda.current_stream(source.device)
            on_stream = getattr(cuda, "stream", None)
            # To the CPU with non_blocking: PyTorch allocates the destination
            # in pinned memory (its caching host allocator), so the copy is a
            # real asynchronous one, on the stream that made the value.
            with on_stream(stream) if callable(on_stream) else contextlib.nullcontext():
                host = source.to("cpu", non_blocking=True)
            event = cuda.Event()
            event.record(stream)
        except Exception:
            return  # read() gives None: the name is left out
        self.host, self.event = host, event

    def ready(self):
        """Whether the copy has landed (never waits); a broken event counts as
        ready, and read() then gives what it can."""
        if self.event is None:
            return True
        try:
            return bool(self.event.query())
        except Exception:
            self.host = None
            return True

    def read(self):
        return None if self.host is None else _number(self.host)


def _current_stream(source):
    try:
        import torch

        return torch.cuda.current_stream(source.device)
    except Exception:
        return None


def _number(source):
    try:
        value = source.item()
    except Exception:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return value


def _on_cuda(value):
    # torch's attribute; numpy and CPU tensors have none or False. Other
    # accelerators (MPS, XPU) keep the plain .item() path.
    try:
        return getattr(value, "is_cuda", False) is True
    except Exception:
        return False


def deferred(name, value):
    """value as a Deferred or GpuDeferred when it has .item(); None when it has not."""
    item = getattr(value, "item", None)
    if isinstance(value, (str, bytes)) or not callable(item):
        return None
    numel = getattr(value, "numel", None)
    # torch and numpy know the shape without the GPU.
    count = numel() if callable(numel) else getattr(value, "size", 1)
    if isinstance(count, int) and count != 1:
        raise ValueError(f"gpuwatch.log: {name} must be a single number, got {count} elements")
    detach = getattr(value, "detach", None)
    # Not the autograd graph: only the value is wanted.
    source = detach() if callable(detach) else value
    return GpuDeferred(source) if _on_cuda(source) else Deferred(source)


def is_deferred(value):
    return isinstance(value, (Deferred, GpuDeferred))
