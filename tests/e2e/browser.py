"""Headless Chromium for the `gpuwatch serve` pages' tests.

The pages (web/index.html, web/app.js, web/chart.js, web/app.css) run in a real browser: Chromium
in headless mode loads a URL, lets its scripts run for a budget of *virtual* time (timers and
network waits advance without real waiting where Chromium can), then prints the DOM or takes a
picture. Each call uses a fresh profile in a temporary directory, so no cookie, cache or service
worker carries over from one call to the next, and is bounded by a wall-clock timeout.

Typical use in a unittest::

    from browser import CHROMIUM, dump_dom, screenshot

    @unittest.skipUnless(CHROMIUM, "chromium is not installed")
    class ServeUi(unittest.TestCase):
        def test_runs_list(self):
            dom = dump_dom(f"http://127.0.0.1:{port}/#/")
            self.assertIn('data-run-id="', dom)

The pages' hooks for tests: ``<table id="runs">`` with one ``<tr data-run-id="ID">`` per run;
every chart is a ``<canvas class="chart" data-metric="NAME" data-points="N">`` (uPlot's canvas;
N = points drawn, updated on every redraw, live appends included); the compare page is
``<div id="compare" data-runs="ID,ID">``; an API error is shown in ``<div id="error">``. A chart's
canvas also has ``data-labels``: its markers' labels drawn, ``|``-separated; ``data-series-points``:
the points drawn per series, ``,``-separated (compare's overlaid runs); ``data-x-range``: the
data's x extent, ``LO,HI`` (seconds, steps or epochs, as the x axis is). ``evaluate()`` runs
the page in an emulated viewport (390 px: a phone) over the DevTools protocol and returns the
value of an expression and the console's errors.
"""

import os
import shutil
import subprocess
import tempfile

#: The Chromium binary, or None when none is installed (skip the browser tests then).
CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), shutil.which("google-chrome"))
                 if p), None)

#: Wall-clock bound of one Chromium run, in seconds.
TIMEOUT_S = 30


def _run(url, extra, budget_ms, timeout_s, stderr=False):
    """Runs headless Chromium on ``url`` with the arguments ``extra``; returns its stdout (its
    stderr when ``stderr``).

    Raises ``unittest.SkipTest`` when Chromium is missing, ``subprocess.TimeoutExpired`` past
    ``timeout_s`` and ``RuntimeError`` (with Chromium's stderr) when it fails.
    """
    if CHROMIUM is None:
        import unittest
        raise unittest.SkipTest("chromium is not installed")
    with tempfile.TemporaryDirectory(prefix="gpuwatch-chromium-") as profile:
        cmd = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking",
               f"--user-data-dir={profile}", f"--virtual-time-budget={int(budget_ms)}",
               *extra, url]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout_s, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium exited {proc.returncode} on {url}:\n"
                           + proc.stderr.decode(errors="replace")[-2000:])
    return (proc.stderr if stderr else proc.stdout).decode(errors="replace")


def dump_dom(url, budget_ms=8000, timeout_s=TIMEOUT_S, size=None):
    """The page's DOM (serialized HTML) after its scripts ran for ``budget_ms`` of virtual time,
    in a window of ``size`` (CSS pixels) when given.

    Give live pages a budget long enough for the events expected (the server sends one a second).
    """
    extra = [f"--window-size={size[0]},{size[1]}"] if size else []
    return _run(url, ["--dump-dom", *extra], budget_ms, timeout_s)


def console_messages(url, budget_ms=8000, timeout_s=TIMEOUT_S):
    """The page's console messages (Chromium's ``CONSOLE`` log lines): uncaught errors, and what
    the Content-Security-Policy refused."""
    err = _run(url, ["--dump-dom", "--enable-logging=stderr", "--v=0"], budget_ms, timeout_s, stderr=True)
    return [line for line in err.splitlines() if ":CONSOLE" in line]


def screenshot(url, path, budget_ms=8000, size=(1400, 1000), timeout_s=TIMEOUT_S):
    """Saves a PNG of the page at ``path`` (window ``size`` in CSS pixels); returns ``path``."""
    _run(url, [f"--screenshot={os.path.abspath(path)}", f"--window-size={size[0]},{size[1]}",
               "--hide-scrollbars"], budget_ms, timeout_s)
    if not os.path.exists(path):
        raise RuntimeError(f"chromium wrote no screenshot of {url} at {path}")
    return path


class _Pipe:
    """Chromium's DevTools protocol over --remote-debugging-pipe: JSON messages ended by a NUL,
    commands written to the browser's fd 3, answers and events read from its fd 4."""

    def __init__(self, proc, to_browser, from_browser):
        self.proc, self.out, self.inp, self.next_id, self.buffer = proc, to_browser, from_browser, 0, b""
        self.events = []

    def call(self, method, params=None, session=None, timeout_s=TIMEOUT_S):
        import json
        import select
        import time
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
                self.events.append(reply)
            ready, _, _ = select.select([self.inp], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                break
            self.buffer += chunk
        raise RuntimeError(f"chromium did not answer {method}")


def evaluate(url, expression, size=(1400, 1000), wait_s=6.0, screenshot_path=None, timeout_s=TIMEOUT_S):
    """Opens ``url`` in a viewport of ``size`` CSS pixels (emulated: a headless window is at least
    500 px wide, so 390 px is only reachable this way), waits ``wait_s`` seconds of real time,
    and returns ``(value of expression, console errors and uncaught exceptions)`` (a promise's
    value when it is one); saves a PNG of
    the viewport at ``screenshot_path`` when given."""
    import base64
    import time
    if CHROMIUM is None:
        import unittest
        raise unittest.SkipTest("chromium is not installed")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    with tempfile.TemporaryDirectory(prefix="gpuwatch-chromium-", ignore_cleanup_errors=True) as profile:
        # The child's fds 3 and 4 are the pipe's ends, moved there in the child.
        def place_fds():
            high_r, high_w = os.dup(to_browser_r), os.dup(from_browser_w)  # out of 3 and 4's way
            os.dup2(high_r, 3)  # dup2 makes them inheritable
            os.dup2(high_w, 4)
        proc = subprocess.Popen([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                 "--no-first-run", "--disable-extensions", "--remote-debugging-pipe",
                                 f"--user-data-dir={profile}", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=place_fds,
                                close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        pipe = _Pipe(proc, to_browser_w, from_browser_r)
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout_s=timeout_s)["targetId"]
            session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            pipe.call("Runtime.enable", session=session)
            pipe.call("Emulation.setDeviceMetricsOverride", {"width": size[0], "height": size[1],
                                                              "deviceScaleFactor": 1, "mobile": size[0] < 700},
                      session=session)
            pipe.call("Page.navigate", {"url": url}, session=session)
            time.sleep(wait_s)
            value = pipe.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                              session=session, timeout_s=timeout_s)["result"].get("value")
            if screenshot_path:
                shot = pipe.call("Page.captureScreenshot", {"format": "png"},
                                 session=session)
                with open(screenshot_path, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            errors = [e["params"] for e in pipe.events
                      if e.get("method") == "Runtime.exceptionThrown"
                      or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")]
            return value, errors
        finally:
            try:
                pipe.call("Browser.close", timeout_s=5)
            except (RuntimeError, OSError):
                pass  # gone already: killed below
            os.close(to_browser_w)
            os.close(from_browser_r)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
