"""The run page tells the story of a run (issue 26): a training annotated through the Python
client (epochs, train and val phases, loss, lr, val_loss, a batch size, checkpoint marks) on two
fake GPUs. The API gives its training curves reduced to what is drawn and a summary per run; in
headless Chromium the page shows the verdict card, the training charts beside the GPUs', epoch
and phase labels that can be read (never an "end" over them, no internal events), every panel
growing while the run records, the runs list following the store, no horizontal overflow at
390 px and no console error. With GPUWATCH_SCREENSHOTS=docs/img it writes the pictures of
docs/serve.md at 1400 and 390 px."""
import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest

from browser import CHROMIUM, console_messages, dump_dom, evaluate, screenshot
from test_serve import BROWSER_TIMEOUT_S, MAKE_RUN_STORE, SCENARIO, ServeCase, canvases

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")


def story(epochs, train_s, val_s, quiet_s=0):
    """A training that says what it does through the client, about (train_s + val_s) x epochs long,
    after quiet_s seconds of saying nothing."""
    return ("import time, gpuwatch\n"
            f"time.sleep({quiet_s})\n"
            "gpuwatch.log(batch_size=32)\n"
            "step = 0\n"
            f"for e in range(1, {epochs + 1}):\n"
            "    gpuwatch.epoch(e)\n"
            "    with gpuwatch.phase('train'):\n"
            f"        end = time.monotonic() + {train_s}\n"
            "        while time.monotonic() < end:\n"
            "            step += 1\n"
            "            gpuwatch.step(step)\n"
            "            gpuwatch.log(loss=2.0 / step ** 0.5, lr=0.001 * 0.9 ** e)\n"
            "            time.sleep(0.02)\n"
            "    with gpuwatch.phase('val'):\n"
            f"        time.sleep({val_s})\n"
            "        gpuwatch.log(val_loss=2.2 / step ** 0.5)\n"
            "    gpuwatch.mark(f'checkpoint {e}')\n")


def chart(dom, metric):
    """The attributes of the canvas of `metric`'s chart (the run's charts, not the memory grid)."""
    found = [c for c in canvases(dom) if c.get("data-metric") == metric and "data-gpu" not in c]
    return found[0] if found else {}


class StoryCase(ServeCase):
    def record_story(self, name, epochs=3, train_s=1.6, val_s=0.5, script=None):
        r = self.run_gw("record", "--name", name, "--interval", "0.1", "--no-summary", "--", sys.executable, "-c",
                        script or story(epochs, train_s, val_s), scenario=SCENARIO, PYTHONPATH=PYTHON_DIR, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(self.run_gw("runs", "--format", "json").stdout)["runs"][-1]["id"]

    def start_story(self, name, epochs, train_s=1.6, val_s=0.5, quiet_s=0):
        rec = self.start_gw("record", "--name", name, "--interval", "0.1", "--no-summary", "--", sys.executable, "-c",
                            story(epochs, train_s, val_s, quiet_s), scenario=SCENARIO, PYTHONPATH=PYTHON_DIR)
        self.procs.append(rec)
        self.wait_for(lambda: os.path.exists(self.store) and name in self.run_gw("runs").stdout, what=f"the run {name}")
        return rec


class StoryApiTest(StoryCase):
    def test_training_curves_and_summary(self):
        run = self.record_story("story")
        base = self.serve()
        status, t = self.get(f"{base}/api/runs/{run}/training?points=10")
        self.assertEqual(status, 200, t)
        self.assertEqual(t["schema_version"], 1)
        self.assertEqual(t["batch_size"], 32)
        self.assertEqual({s["name"] for s in t["scalars"]}, {"loss", "lr", "val_loss"})  # not batch_size
        for s in t["scalars"]:
            self.assertLessEqual(len(s["t"]), 2 * 10 + 2, s["name"])  # reduced to what is drawn
            self.assertEqual(len(s["t"]), len(s["v"]))
        rates = {r["name"]: r for r in t["rates"]}
        self.assertEqual(sorted(rates), ["samples_per_s", "steps_per_s"])
        steps = [v for v in rates["steps_per_s"]["v"] if v is not None]
        self.assertTrue(steps and all(v > 0 for v in steps), steps)
        self.assertAlmostEqual(rates["samples_per_s"]["v"][-1], 32 * rates["steps_per_s"]["v"][-1])
        self.assertLessEqual(len(t["steps"]["t"]), 10 + 1)
        self.assertEqual(t["steps"]["v"], sorted(t["steps"]["v"]))
        status, s = self.get(f"{base}/api/runs/{run}/summary")
        self.assertEqual(status, 200, s)
        self.assertEqual(s["schema_version"], 2)
        self.assertEqual([g["gpu"] for g in s["gpus"]], [0, 1])
        self.assertGreater(s["steps_per_s"], 5)
        self.assertLess(s["final_loss"], 0.5)
        self.assertIn(s["verdict"], ("ok", "info", "warning", "critical"))
        self.assertGreater(s["duration_s"], 3)
        status, info = self.get(f"{base}/api/info")
        self.assertEqual(info["gpu_colors"][:2], ["#0072b2", "#e69f00"])  # the plots' palette
        self.assertEqual(self.get(f"{base}/api/runs/{run}/training?points=0")[0], 400)
        self.assertEqual(self.get(f"{base}/api/runs/nosuchrun/summary")[0], 404)


    def test_a_long_runs_summary_is_not_judged_by_reading_it_whole(self):
        # 8 GPUs, 30 min at 80 Hz: 1.15 M device-samples, past what a summary judges.
        if not os.access(MAKE_RUN_STORE, os.X_OK):
            self.skipTest(f"{MAKE_RUN_STORE} is not built (GPUWATCH_BENCH=OFF): the plain build runs this")
        subprocess.run([MAKE_RUN_STORE, "--out", self.store, "--hours", "0.5", "--hz", "80", "--name", "long"],
                       check=True, capture_output=True, timeout=300)
        base = self.serve()
        pid = self.procs[-1].pid
        status, s = self.get(f"{base}/api/runs/long/summary")
        self.assertEqual(status, 200, s)
        self.assertIsNone(s["verdict"])
        self.assertIsNone(s["root_cause"])
        self.assertEqual(len(s["gpus"]), 8)
        self.assertGreater(s["util_percent_mean"], 0)
        with open(f"/proc/{pid}/status") as f:
            peak_mib = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) / 1024
        self.assertLess(peak_mib, 150)  # judged, the run is read whole: about 350 MB


@unittest.skipUnless(CHROMIUM, "chromium is not installed")
class StoryPagesTest(StoryCase):
    def test_the_run_page_tells_the_story(self):
        run = self.record_story("story")
        other = self.record_story("other", epochs=2)
        base = self.serve()
        dom = dump_dom(f"{base}/#/run/{run}", timeout_s=BROWSER_TIMEOUT_S, size=(1400, 1000))
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        # The verdict card, first on the page, with the numbers a run is judged by.
        self.assertLess(dom.index('id="verdict"'), dom.index('id="charts"'))
        self.assertRegex(dom, r'id="verdict-word">(ok|info|warning|critical)<')
        self.assertRegex(dom, r'id="steps-per-s"><span class="vlabel">steps/s</span><b>[0-9.,]+</b>')
        self.assertRegex(dom, r'id="final-loss"><span class="vlabel">final loss</span><b>0\.[0-9]+</b>')
        self.assertIn("GPU 1", dom[dom.index('id="verdict"'):dom.index('id="charts"')])
        # The training charts, train and val overlaid, drawn beside the GPUs'.
        for metric in ("training.loss", "training.lr", "training.steps_per_s", "training.samples_per_s",
                       "gpu_util_percent", "temp_gpu_celsius"):
            self.assertGreater(int(chart(dom, metric).get("data-points", 0)), 0, metric)
        loss_box = dom[dom.index('data-metric="training.loss"'):]
        self.assertIn("val_loss", loss_box[:600])
        # Markers say what they mean: every epoch and phase by its name, no "end", no bookkeeping.
        labels = chart(dom, "gpu_util_percent").get("data-labels", "").split("|")
        self.assertIn("epoch 1", labels)
        self.assertIn("epoch 3", labels)
        self.assertIn("val", labels)
        self.assertTrue(any(x.startswith("checkpoint") for x in labels), labels)
        self.assertFalse([x for x in labels if "end" in x or "job_gpus" in x], labels)
        self.assertIn('<select id="xaxis"', dom)
        # The x axis switched to steps, to epochs and back: every chart redrawn, markers kept.
        switch = ("(async () => { const out = []; for (const v of ['step', 'epoch', 'time']) {"
                  " const s = document.getElementById('xaxis'); s.value = v; s.dispatchEvent(new Event('change'));"
                  " await new Promise((done) => setTimeout(done, 300));"
                  " out.push(document.querySelector('canvas[data-metric=\"training.loss\"]').dataset.labels); }"
                  " return out; })()")
        labels_by_axis, errors = evaluate(f"{base}/#/run/{run}", switch, wait_s=8, timeout_s=BROWSER_TIMEOUT_S)
        self.assertEqual(errors, [])
        self.assertEqual(len(labels_by_axis), 3)
        self.assertTrue(all("epoch 2" in x for x in labels_by_axis), labels_by_axis)
        self.assertEqual(console_messages(f"{base}/#/run/{run}", timeout_s=BROWSER_TIMEOUT_S), [])
        # The runs list: the summary columns, filled in.
        dom = dump_dom(f"{base}/#/", timeout_s=BROWSER_TIMEOUT_S)
        for column in ("mean util", "energy", "final loss", "steps/s", "verdict"):
            self.assertIn(f">{column}<", dom)
        row = re.search(rf'<tr data-run-id="{other}".*?</tr>', dom, re.S).group(0)
        self.assertRegex(row, r'class="badge verdict-\w+"')
        self.assertNotIn(">…<", row)
        self.assertEqual(console_messages(f"{base}/#/", timeout_s=BROWSER_TIMEOUT_S), [])
        shots = os.environ.get("GPUWATCH_SCREENSHOTS")  # a folder: docs/img/ when refreshing them
        if shots:
            screenshot(f"{base}/#/run/{run}", os.path.join(shots, "serve-run.png"), size=(1400, 2000))
            screenshot(f"{base}/#/", os.path.join(shots, "serve-runs.png"), size=(1400, 500))

    def test_nothing_overflows_a_phone(self):
        run = self.record_story("story", epochs=2)
        base = self.serve()
        shots = os.environ.get("GPUWATCH_SCREENSHOTS")
        for fragment, name in (("#/", "runs"), (f"#/run/{run}", "run")):
            # A phone's viewport, emulated (a headless window is at least 500 px wide).
            shot = os.path.join(shots, f"serve-{name}-390.png") if shots and name == "run" else None
            (width, charts), errors = evaluate(
                f"{base}/{fragment}", "[document.documentElement.scrollWidth, document.querySelectorAll('canvas.chart').length]",
                size=(390, 2400), wait_s=8, screenshot_path=shot, timeout_s=BROWSER_TIMEOUT_S)
            self.assertLessEqual(width, 390, fragment)
            self.assertEqual(errors, [], fragment)
            if name == "run":
                self.assertGreater(charts, 4)

    def test_every_panel_follows_a_live_run(self):
        dump_dom("about:blank", budget_ms=100, timeout_s=BROWSER_TIMEOUT_S)  # Chromium's slow first start
        # The page opens before the training logs anything: its charts come with the first names.
        self.start_story("live", epochs=5, train_s=1.5, val_s=0.5, quiet_s=4)
        base = self.serve()
        at_load = {}
        for metric in ("gpu_util_percent", "temp_gpu_celsius"):
            _, s = self.get(f"{base}/api/runs/live/series?metric={metric}&points=10000")
            at_load[metric] = sum(1 for d in s["devices"] for v in d["v"] if v is not None)
        dom = dump_dom(f"{base}/#/run/live", budget_ms=30000, timeout_s=BROWSER_TIMEOUT_S)
        self.assertIn("run finished", dom)
        for metric in ("gpu_util_percent", "temp_gpu_celsius"):
            self.assertGreater(int(chart(dom, metric).get("data-points", 0)), at_load[metric] + 20, metric)
        # Host samples and logged names that first arrive after the page opened get their charts
        # live too (under load the page can open before the recorder's first host sample).
        for metric in ("host.cpu_percent", "training.loss"):
            self.assertGreater(int(chart(dom, metric).get("data-points", 0)), 2, (metric, chart(dom, metric), [c.get("data-metric") for c in canvases(dom)]))
        labels = chart(dom, "gpu_util_percent").get("data-labels", "").split("|")
        self.assertIn("epoch 5", labels)  # an epoch begun after the page opened
        self.assertRegex(dom, r'<dt>exit code</dt><dd>0</dd>')
        self.assertRegex(dom, r'id="verdict-word">(ok|info|warning|critical)<')
        self.assertNotRegex(dom, r"loss \d\.\d{6}")  # rounded for people

    def test_the_runs_list_follows_the_store(self):
        self.record_story("first", epochs=1, train_s=0.5, val_s=0.1)
        base = self.serve()
        # The page opens on one run; a second one starts while it is shown, records and ends.
        rows = "[...document.querySelectorAll('#runs tbody tr')].map((r) => r.textContent)"
        seen = {}
        page = threading.Thread(target=lambda: seen.update(zip(("rows", "errors"), evaluate(
            f"{base}/#/", rows, wait_s=25, timeout_s=BROWSER_TIMEOUT_S))))
        page.start()
        time.sleep(4)
        self.record_story("second", epochs=2, train_s=1.0, val_s=0.2)
        page.join(timeout=BROWSER_TIMEOUT_S)
        self.assertEqual(seen.get("errors"), [])
        second = [r for r in seen["rows"] if r.startswith("second")]
        self.assertEqual(len(second), 1, seen["rows"])
        self.assertIn("finished", second[0])
        self.assertRegex(second[0], r"(ok|info|warning|critical)")  # its summary read when it ended


# The share of the pixels of a chart's plot frame's right edge that are drawn (1 when solid), read
# from its canvas (device scale 1: CSS and canvas pixels are one).
FRAME_RIGHT_EDGE_SHARE = (
    "(() => { const box = document.querySelector('.chart-box[data-metric=\"%s\"]');"
    " const over = box.querySelector('.u-over'), c = box.querySelector('canvas');"
    " const [l, t, w, h] = ['left', 'top', 'width', 'height'].map((k) => Math.round(parseFloat(over.style[k])));"
    " const column = c.getContext('2d').getImageData(l + w, t, 1, h).data;"
    " let drawn = 0; for (let i = 3; i < column.length; i += 4) if (column[i] > 0) drawn++;"
    " return drawn / h; })()")


@unittest.skipUnless(CHROMIUM, "chromium is not installed")
class StoryComparePageTest(StoryCase):
    """The compare page overlays the runs' training curves (issue 26, item 1), aligned by time, step
    or epoch, on the run page's chart code."""

    def slower_story(self, **shape):
        """story(), its loss twice as high and a step every 45 ms instead of 20."""
        script = story(**shape)
        slower = script.replace("loss=2.0 / step", "loss=4.0 / step").replace("time.sleep(0.02)", "time.sleep(0.045)")
        self.assertEqual(len(slower), len(script) + 1, "story() changed: slower_story() no longer applies")
        return slower

    def training_chart(self, dom, metric):
        """The drawn points per series, and the x extent, of a chart of the compare page."""
        c = chart(dom, metric)
        self.assertTrue(c, f"no {metric} chart")
        points = [int(n) for n in c.get("data-series-points", "").split(",") if n]
        lo, hi = (float(x) for x in c["data-x-range"].split(","))
        return points, lo, hi

    def test_the_compare_page_overlays_the_trainings(self):
        # Two trainings that differ in their loss and in their pace: a step every 20 and 45 ms.
        fast = self.record_story("fast", epochs=2, train_s=1.2, val_s=0.3)
        slow = self.record_story("slow", script=self.slower_story(epochs=2, train_s=1.2, val_s=0.3))
        base = self.serve()
        last_steps = [self.get(f"{base}/api/runs/{run}/training")[1]["steps"]["v"][-1] for run in (fast, slow)]
        url = f"{base}/#/compare/{fast},{slow}"
        dom = dump_dom(url, timeout_s=BROWSER_TIMEOUT_S, size=(1400, 1000))
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        self.assertIn('data-align="time"', dom)
        self.assertRegex(dom, r'<select id="align"[^>]*>.*value="step".*value="epoch"')
        # Loss first, train and val of each run overlaid, the legend naming the runs.
        self.assertLess(dom.index('data-metric="training.loss"'), dom.index('data-metric="training.lr"'))
        points, time_lo, time_hi = self.training_chart(dom, "training.loss")
        self.assertEqual(len(points), 4, points)  # A loss, A val_loss, B loss, B val_loss
        self.assertTrue(all(n > 0 for n in points), points)
        box = dom[dom.index('data-metric="training.loss"'):]
        self.assertIn("A fast", box[:800])
        self.assertIn("B slow", box[:800])
        steps_points, _, _ = self.training_chart(dom, "training.steps_per_s")
        self.assertEqual(len(steps_points), 2, steps_points)
        self.assertTrue(all(n > 0 for n in steps_points), steps_points)
        self.assertGreater(int(chart(dom, "gpu_util_percent").get("data-points", 0)), 0)
        self.assertLess(time_hi, 30)  # seconds since each run's start
        # By step: every line on its run's step counter, the GPUs' too.
        dom = dump_dom(f"{url}/step", timeout_s=BROWSER_TIMEOUT_S, size=(1400, 1000))
        self.assertIn('data-align="step"', dom)
        self.assertNotIn('id="error">', dom.replace('id="error" hidden="">', ""))
        points, step_lo, step_hi = self.training_chart(dom, "training.loss")
        self.assertTrue(len(points) == 4 and all(n > 0 for n in points), points)
        self.assertGreaterEqual(step_lo, 1)
        self.assertLessEqual(step_hi, max(last_steps))
        self.assertNotEqual((step_lo, step_hi), (time_lo, time_hi))
        _, _, rate_hi = self.training_chart(dom, "training.steps_per_s")
        self.assertAlmostEqual(rate_hi, max(last_steps), delta=0.5)  # the last step counted, at its step
        gpu_points, _, gpu_hi = self.training_chart(dom, "gpu_util_percent")
        self.assertTrue(len(gpu_points) == 2 and all(n > 0 for n in gpu_points), gpu_points)
        self.assertLessEqual(gpu_hi, max(last_steps) + 1)
        self.assertEqual(console_messages(url, timeout_s=BROWSER_TIMEOUT_S), [])
        # A phone: nothing wider than its screen, nothing thrown; the loss chart's frame solid
        # (its last series, B's val_loss, is dashed: that dash once leaked into the frame).
        (width, charts, frame), errors = evaluate(
            f"{url}/step", "[document.documentElement.scrollWidth, document.querySelectorAll('canvas.chart').length, "
            f"{FRAME_RIGHT_EDGE_SHARE % 'training.loss'}]", size=(390, 2400), wait_s=8, timeout_s=BROWSER_TIMEOUT_S)
        self.assertLessEqual(width, 390)
        self.assertEqual(errors, [])
        self.assertGreater(charts, 4)
        self.assertEqual(frame, 1)
        shots = os.environ.get("GPUWATCH_SCREENSHOTS")  # a folder: docs/img/ when refreshing them
        if shots:
            evaluate(url, "document.getElementById('timelines').scrollIntoView(), true", size=(1400, 1000),
                     screenshot_path=os.path.join(shots, "serve-compare-training.png"), timeout_s=BROWSER_TIMEOUT_S)

    def test_a_run_without_training_says_so(self):
        trained = self.record_story("trained", epochs=1, train_s=0.8, val_s=0.2)
        r = self.run_gw("record", "--name", "plain", "--interval", "0.1", "--no-summary", "--", "sleep", "1",
                        scenario=SCENARIO)
        self.assertEqual(r.returncode, 0, r.stderr)
        base = self.serve()
        dom = dump_dom(f"{base}/#/compare/{trained},plain/step", timeout_s=BROWSER_TIMEOUT_S)
        # One line instead of empty charts; the other run's curves drawn; time only (plain counted no step).
        self.assertRegex(dom, r'id="no-training">No training curves for B plain: it logged no steps or scalars')
        self.assertIn("not every run counted its steps", dom)
        self.assertIn('data-align="time"', dom)
        points, _, _ = self.training_chart(dom, "training.loss")
        self.assertTrue(len(points) == 2 and all(n > 0 for n in points), points)
        self.assertNotIn('<select id="align"', dom)


if __name__ == "__main__":
    unittest.main()
