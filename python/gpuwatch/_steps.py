"""The step's own time: how long a training loop waits for its next batch,
and how long its steps take, measured on the host clock alone (never the
GPU, which would have to be synchronized to be asked).

Per step the client adds the wait and the step time to running sums; about
once a second, and at the end of a loader's iteration or an epoch, the sums
go out as one log message of the reserved names

    data_wait_s   seconds waited for batches over the steps it covers
    step_time_s   seconds of those steps, the waits included
    timed_steps   how many steps it covers

with mono_ns = the end of the last step it covers (docs/annotations.md).
"""
import numbers

DATA_WAIT = "data_wait_s"
STEP_TIME = "step_time_s"
TIMED_STEPS = "timed_steps"

# The recorder keeps one log message per set of names a second, the latest
# winning (docs/annotations.md). These messages carry sums, so one replaced
# by the next would lose its steps: two of them are never less than this
# apart (by mono_ns), except the last one at exit.
SPACING_NS = 1_000_000_000


class StepTimes:
    """Sums over the steps not sent yet, and when the last message went out.
    Not thread-safe: the client calls it with its lock held."""

    __slots__ = ("wait_ns", "step_ns", "steps", "first_start_ns", "end_ns", "sent_ns")

    def __init__(self):
        self.sent_ns = None
        self.clear()

    def clear(self):
        self.wait_ns = 0
        self.step_ns = 0
        self.steps = 0
        self.first_start_ns = None
        self.end_ns = None

    def add(self, wait_ns, step_ns, end_ns):
        if self.steps == 0:
            self.first_start_ns = end_ns - step_ns
        self.wait_ns += wait_ns
        self.step_ns += step_ns
        self.steps += 1
        self.end_ns = end_ns

    def due(self, spacing_ns=SPACING_NS):
        """Whether a message every about spacing_ns is due (after add())."""
        if not self.steps:
            return False
        since = self.sent_ns if self.sent_ns is not None else self.first_start_ns
        return self.end_ns - since >= spacing_ns

    def may_send(self, spacing_ns=SPACING_NS):
        """Whether what is held may go out now (an iteration's or an epoch's
        end): yes unless a message went out less than spacing_ns before its
        last step ended; then it goes out with the next one."""
        if not self.steps:
            return False
        return self.sent_ns is None or self.end_ns - self.sent_ns >= spacing_ns

    def take(self):
        """The log message of the steps held (and they are forgotten)."""
        message = {
            "kind": "log",
            "value": {
                DATA_WAIT: self.wait_ns / 1e9,
                STEP_TIME: self.step_ns / 1e9,
                TIMED_STEPS: self.steps,
            },
            "mono_ns": self.end_ns,
        }
        self.sent_ns = self.end_ns
        self.clear()
        return message


def check_iterable(iterable):
    """A mistake raises at the call, with or without gpuwatch."""
    kind = type(iterable)
    if isinstance(iterable, (str, bytes, numbers.Number)) or not (
            hasattr(kind, "__iter__") or hasattr(kind, "__getitem__")):
        raise TypeError(f"gpuwatch.loader: expected an iterable loader, got {kind.__name__}")


class TimedIterator:
    """Times each next(): the wait is the call itself; a step runs from one
    call to the next (what the loop does with the batch, and the wait)."""

    __slots__ = ("_it", "_client", "_clock", "_called_ns", "_wait_ns")

    def __init__(self, it, client):
        self._it = it
        self._client = client
        self._clock = client.clock
        self._called_ns = None  # the call that fetched the batch in use: its step's start
        self._wait_ns = 0

    def __iter__(self):
        return self

    def __next__(self):
        called_ns = self._clock()
        if self._called_ns is not None:
            self._client.time_step(self._wait_ns, called_ns - self._called_ns, called_ns)
            self._called_ns = None
        try:
            batch = next(self._it)
        except StopIteration:
            self._client.end_steps()
            raise
        self._wait_ns = self._clock() - called_ns
        self._called_ns = called_ns
        return batch


class Loader:
    """What gpuwatch.loader() returns: iterates as the loader does, timing
    each step when annotations are sent; attributes are the loader's."""

    def __init__(self, iterable, get_client):
        self._iterable = iterable
        self._get_client = get_client

    def __iter__(self):
        client = self._get_client()
        if not client.enabled:
            return iter(self._iterable)  # nothing recorded: the loader's own iterator, no cost per step
        return TimedIterator(iter(self._iterable), client)

    def __getattr__(self, name):
        # Only called for names the wrapper lacks: dataset, batch_size, sampler...
        if name.startswith("__") or name in ("_iterable", "_get_client"):
            raise AttributeError(name)
        return getattr(self._iterable, name)

    def __repr__(self):
        return f"gpuwatch.loader({self._iterable!r})"


class SizedLoader(Loader):
    """A Loader over a loader with len(): has it too (progress bars, schedulers)."""

    def __len__(self):
        return len(self._iterable)


def wrap(iterable, get_client):
    check_iterable(iterable)
    if hasattr(type(iterable), "__len__"):
        return SizedLoader(iterable, get_client)
    return Loader(iterable, get_client)


class HookTimer:
    """Step times from a framework's hooks, where no next() can be timed: a
    step runs from when the framework starts getting its batch (the previous
    batch's end, the epoch's start) to the end of its batch; the wait is its
    part before the batch starts. Time between steps that is neither
    (validation, logging, saving) is left out with paused() and
    restart_fetch()."""

    __slots__ = ("_get_client", "_fetch_ns", "_start_ns", "_wait_ns")

    def __init__(self, get_client):
        self._get_client = get_client
        self._fetch_ns = None  # getting the next batch since
        self._start_ns = None  # the step in progress started (its fetch began)
        self._wait_ns = 0

    def _now(self):
        client = self._get_client()
        return client.clock() if client.enabled else None

    def fetch_started(self):
        """From now on the framework gets its next batch (an epoch starts,
        or what came between two steps is over)."""
        self._fetch_ns = self._now()
        self._start_ns = None

    def batch_started(self):
        now = self._now()
        # Without a fetch under way: a step already started (a framework that
        # says so again per micro-batch) goes on; one with no known start (a
        # callback added mid-epoch) stays untimed.
        if now is None or self._fetch_ns is None:
            return
        self._wait_ns = now - self._fetch_ns
        self._start_ns = self._fetch_ns
        self._fetch_ns = None

    def batch_ended(self):
        now = self._now()
        if now is None:
            return
        if self._start_ns is not None:
            self._get_client().time_step(self._wait_ns, now - self._start_ns, now)
        self._start_ns = None
        self._fetch_ns = now

    def restart_fetch(self):
        """Between two steps, what came since the last batch's end (logging,
        saving, evaluating) is over: the fetch is counted from now."""
        if self._fetch_ns is not None:
            self._fetch_ns = self._now()

    def paused(self):
        """Something that is no fetch begins (validation): not timed until fetch_started()."""
        self._fetch_ns = None
        self._start_ns = None

    def epoch_ended(self):
        self._fetch_ns = None
        self._start_ns = None
        client = self._get_client()
        if client.enabled:
            client.end_steps()
