"""Annotations for runs recorded by `gpuwatch record -- python train.py`.

    import gpuwatch
    gpuwatch.epoch()
    with gpuwatch.phase("train"):
        for batch in gpuwatch.loader(loader):   # times the wait for each batch
            ...
            gpuwatch.step()
            gpuwatch.log(loss=loss)   # a tensor: copied and read without a GPU sync

Outside `gpuwatch record` (GPUWATCH_SOCKET unset) every call checks its
arguments and sends nothing. Sending never blocks and never raises. See
docs/python.md for the API and the protocol.
"""
import os
import threading

from gpuwatch import _steps
from gpuwatch._client import SOCKET_ENV, Client
from gpuwatch._metrics import DEFAULT_TIMEOUT_S

__version__ = "0.1.0"
__all__ = ["step", "epoch", "phase", "log", "loader", "mark", "log_torch_memory", "model", "enabled", "metrics"]

_default = None
_default_lock = threading.Lock()


def _client():
    """The process's client, made on first use from GPUWATCH_SOCKET."""
    global _default
    client = _default
    if client is None:
        with _default_lock:
            if _default is None:
                _default = Client(os.environ.get(SOCKET_ENV))
            client = _default
    return client


def _reset():
    """Closes the client; the next call reads GPUWATCH_SOCKET again (tests)."""
    global _default
    with _default_lock:
        if _default is not None:
            _default.close()
        _default = None


def enabled():
    """Whether annotations are sent (the program runs under `gpuwatch record`)."""
    return _client().enabled


def step(n=None):
    """Training step n; without n, the next of 1, 2, 3... (counting on from
    the last n given). Sent at most about 4 times a second, latest value first."""
    _client().step(n)


def epoch(n=None):
    """Epoch n; without n, the next of 1, 2, 3... Never held back."""
    _client().epoch(n)


def phase(name):
    """Starts phase name ("train", "val", ...); None or "" ends the current one.
    `with gpuwatch.phase("val"):` also ends it when the block is left."""
    return _client().phase(name)


def log(**scalars):
    """Named numbers (loss=0.53, lr=1e-3) or one-element tensors (loss=loss),
    read only when their message is sent: a CUDA tensor by a non-blocking copy
    whose CUDA event is checked at later calls (the GPU is never synchronized),
    others by .item(). Other values raise TypeError; NaN and infinities are
    dropped. Each set of names is sent at most about 4 times a second, latest
    values first."""
    _client().log(scalars)


def loader(iterable):
    """Wraps a DataLoader (any iterable): `for batch in gpuwatch.loader(dl):`
    iterates exactly as `dl` does (len() and attributes included) and, under
    `gpuwatch record`, times on the host clock how long each next() waited for
    its batch and each step (from one next() to the following one). About once
    a second and when an iteration ends, the sums go out as one log of
    data_wait_s, step_time_s and timed_steps. Outside `gpuwatch record` the
    loader's own iterator is returned: no cost per batch."""
    return _steps.wrap(iterable, _client)


def mark(text):
    """A free-form note at this moment (at most 1024 bytes are kept)."""
    _client().mark(text)


def log_torch_memory(device=None):
    """Logs PyTorch's allocator counters (torch_allocated_bytes,
    torch_reserved_bytes, torch_max_allocated_bytes) for a CUDA device
    (default: the current one); nothing without torch or CUDA."""
    client = _client()
    if not client.enabled:
        return  # before importing torch: that costs seconds
    from gpuwatch import _torch

    scalars = _torch.cuda_memory_scalars(device)
    if scalars:
        client.log(scalars)


def model(params=None, module=None):
    """Logs model_params: params, or the number of elements of
    module.parameters() (a torch.nn.Module or anything alike)."""
    if (params is None) == (module is None):
        raise TypeError("gpuwatch.model: give either params or module")
    if module is not None:
        params = sum(p.numel() for p in module.parameters())
    _client().log({"model_params": params})


def metrics(timeout=DEFAULT_TIMEOUT_S):
    """The recording's latest GPU values as a new dict of name -> number:

        wandb.log({**gpuwatch.metrics(), "loss": loss})

    gpu_total_memory (GiB used), gpu_avg_utilization (%), gpu_load_balance_cv
    (%, 2+ GPUs), gpu_total_power (W), gpu_total_energy (J since the recording
    began) and per GPU i gpu_{i}_memory, gpu_{i}_utilization, gpu_{i}_power,
    gpu_{i}_energy, over the job's GPUs (docs/python.md). {} outside
    `gpuwatch record`, or when no answer comes within timeout seconds. Cached
    for 0.2 s; never raises."""
    try:
        return _client().metrics(timeout)
    except Exception:
        return {}
