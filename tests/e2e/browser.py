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
``<div id="compare" data-runs="ID,ID">``; an API error is shown in ``<div id="error">``.
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


def dump_dom(url, budget_ms=8000, timeout_s=TIMEOUT_S):
    """The page's DOM (serialized HTML) after its scripts ran for ``budget_ms`` of virtual time.

    Give live pages a budget long enough for the events expected (the server sends one a second).
    """
    return _run(url, ["--dump-dom"], budget_ms, timeout_s)


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
