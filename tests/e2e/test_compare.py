"""compare and the group summary over runs recorded with the fake driver."""
import json
import os
import re
import shutil
import sqlite3
import tempfile

from harness import GpuwatchTestCase, QUICK

# Seed 000: AdamWPrune 1381.5 MiB mean per GPU, the other optimizers ~1494 MiB:
# "7.5 % less". The memory swings ±20 MiB every 0.25 s so that the interval
# has a width; util is equal in both runs. Where the samples fall in the swing
# depends on how busy the machine is, so the means (and the percentages, by
# up to a few tenths) move a little from one recording to the next.
ADAMW = QUICK + ";gpu*.util=80;gpu*.mem_used_mib=1474:0.25,1514:0.25"
ADAMWPRUNE = QUICK + ";gpu*.util=80;gpu*.mem_used_mib=1361.5:0.25,1401.5:0.25"


def record(case, name, scenario, seconds="2"):
    r = case.run_gw("record", "--interval", "0.05", "--name", name, "--no-summary", "--", "sleep", seconds,
                    scenario=scenario)
    case.assertEqual(r.returncode, 0, r.stderr)


def stated_percent(case, pattern, text, expected):
    """The percentage in the first match of `pattern` (one group), checked against `expected`."""
    m = re.search(pattern, text)
    case.assertIsNotNone(m, text)
    case.assertAlmostEqual(float(m.group(1)), expected, delta=0.3, msg=m.group(0))
    return m


class Compare(GpuwatchTestCase):
    """Two runs recorded once for every test of the class (recording takes seconds)."""

    @classmethod
    def setUpClass(cls):
        cls.shared = tempfile.mkdtemp(prefix="gpuwatch-e2e-compare-")
        recorder = GpuwatchTestCase()
        recorder.store = os.path.join(cls.shared, "runs.db")
        record(recorder, "adamw", ADAMW)
        record(recorder, "adamwprune", ADAMWPRUNE)
        cls.shared_store = recorder.store

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.shared, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.store = self.shared_store

    def compare(self, *args):
        r = self.run_gw("compare", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_text_says_how_much_less_memory_with_its_interval(self):
        out = self.compare("adamw", "adamwprune")
        self.assertIn("B relative to A (A is the baseline; delta = B − A", out)
        lines = [l.strip() for l in out.splitlines()]
        start = next(i for i, l in enumerate(lines) if l.startswith("B (adamwprune) uses "))
        sentence = " ".join(lines[start:start + 2])  # wrapped at 100 columns
        stated_percent(self, r"^B \(adamwprune\) uses (\d+\.\d) % less GPU memory", sentence, 7.5)
        self.assertRegex(sentence, r"than A \(adamw\): 2\.\d\d GiB vs 2\.\d\d GiB, 95 % CI −\d+\.\d % to −\d+\.\d % "
                                   r"\(circular block bootstrap, block")
        self.assertIn("No real difference in GPU utilization", out)
        for line in out.splitlines():
            self.assertLessEqual(len(line), 100, line)

    def test_swapped_order_says_more(self):
        out = self.compare("adamwprune", "adamw")
        stated_percent(self, r"B \(adamw\) uses (\d+\.\d) % more GPU memory than A \(adamwprune\)", out, 8.1)

    def test_json_schema(self):
        data = json.loads(self.compare("adamw", "adamwprune", "--format", "json"))
        self.assertEqual(data["schema_version"], 1)
        self.assertEqual(data["kind"], "comparison")
        self.assertEqual(data["baseline"], "A")
        self.assertEqual(data["alignment"], "elapsed_time")
        self.assertEqual(data["span"], "common")
        self.assertEqual(data["method"]["name"], "circular block bootstrap")
        self.assertEqual(data["method"]["confidence"], 0.95)
        self.assertEqual([r["label"] for r in data["runs"]], ["A", "B"])
        self.assertEqual([r["name"] for r in data["runs"]], ["adamw", "adamwprune"])
        metrics = {m["metric"]: m for m in data["metrics"]}
        mem = metrics["mem_used_bytes"]
        self.assertEqual(mem["aggregation"], "sum over GPUs")
        self.assertEqual(mem["better"], "lower")
        a, b = mem["runs"]
        self.assertAlmostEqual(a["mean"] / 2**20, 2 * 1494, delta=12)
        self.assertAlmostEqual(b["mean"] / 2**20, 2 * 1381.5, delta=12)
        self.assertGreater(a["effective_samples"], 1)
        self.assertLessEqual(a["effective_samples"], a["samples"])
        (d,) = mem["differences"]
        self.assertEqual(d["label"], "B")
        self.assertAlmostEqual(d["delta_percent"], -100 * 112.5 / 1494, delta=0.3)
        self.assertLess(d["ci_low_percent"], d["delta_percent"])
        self.assertLess(d["ci_high_percent"], 0)
        self.assertAlmostEqual(d["delta"], b["mean"] - a["mean"])
        self.assertTrue(d["real"])
        self.assertEqual(d["verdict"], "real")
        stated_percent(self, r"(\d+\.\d) % less GPU memory", d["sentence"], 7.5)
        util = metrics["gpu_util_percent"]["differences"][0]
        self.assertEqual(util["delta"], 0)
        self.assertEqual(util["verdict"], "not significant")

    def test_markdown(self):
        out = self.compare("adamw", "adamwprune", "--format", "markdown")
        self.assertTrue(out.startswith("## Comparison of 2 runs: B relative to A"), out)
        self.assertIn("| metric | A | B | B−A | % | 95 % interval | real |", out)
        stated_percent(self, r"- B \(adamwprune\) uses (\d+\.\d) % less GPU memory than A \(adamw\)", out, 7.5)

    def test_warmup_and_span_are_applied_and_stated(self):
        data = json.loads(self.compare("adamw", "adamwprune", "--warmup", "0.5", "--span", "full",
                                       "--format", "json"))
        self.assertEqual(data["warmup_s"], 0.5)
        self.assertEqual(data["span"], "full")
        for run in data["runs"]:
            self.assertEqual(run["window_from_s"], 0.5)
            self.assertEqual(run["window_to_s"], run["end_s"])
        self.assertIn("The first 0.5 s of each run (warm-up) are left out.",
                      self.compare("adamw", "adamwprune", "--warmup", "0.5"))

    def test_bad_input(self):
        cases = [
            (["compare", "adamw"], 2, "two runs or more"),
            (["compare"], 2, "two runs or more"),
            (["compare", "adamw", "nope"], 1, "nope"),
            (["compare", "adamw", "adamwprune", "--group", "adam*"], 2, "not both"),
            (["compare", "adamw", "adamwprune", "--warmup", "-1"], 2, "--warmup"),
            (["compare", "adamw", "adamwprune", "--format", "yaml"], 2, "--format"),
            (["compare", "adamw", "adamwprune", "--warmup", "600"], 1, "warm-up"),
            (["compare", "adamw", "adamwprune", "--align", "epoch"], 1, "no epoch annotations"),
            (["compare", "--group", "nothing-like-this*"], 1, "nothing-like-this"),
            (["report"], 2, "RUN"),
            (["report", "adamw", "--group", "adam*"], 2, "not both"),
        ]
        for args, code, message in cases:
            r = self.run_gw(*args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(message, r.stderr, args)
            self.assertEqual(r.stdout, "", args)


class Group(GpuwatchTestCase):
    def test_every_run_appears_and_repeats_are_averaged(self):
        for util in ("40", "60", "80"):
            record(self, "adamw", QUICK + ";gpu*.util=" + util, seconds="0.6")
        record(self, "adamwprune", QUICK + ";gpu*.util=50", seconds="0.6")
        record(self, "other", QUICK, seconds="0.3")

        r = self.run_gw("report", "--group", "adam*", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual(data["schema_version"], 1)
        self.assertEqual(data["kind"], "run_group")
        self.assertEqual([run["name"] for run in data["runs"]], ["adamw", "adamw", "adamw", "adamwprune"])
        self.assertEqual([round(run["gpu_util_percent_mean"]) for run in data["runs"]], [40, 60, 80, 50])
        (repeat,) = data["repeats"]
        self.assertEqual(repeat["name"], "adamw")
        self.assertEqual(repeat["runs"], 3)
        util = repeat["gpu_util_percent_mean"]
        self.assertAlmostEqual(util["mean"], 60, places=3)
        self.assertAlmostEqual(util["std"], 20, places=3)
        self.assertEqual((round(util["min"]), round(util["max"])), (40, 80))
        extremes = {e["column"]: e for e in data["extremes"]}
        self.assertEqual(extremes["gpu_util_percent_mean"]["better"], "higher")
        self.assertEqual(extremes["gpu_util_percent_mean"]["best"], data["runs"][2]["id"])
        self.assertEqual(extremes["gpu_util_percent_mean"]["worst"], data["runs"][0]["id"])

        text = self.run_gw("report", "--group", "adam*").stdout
        self.assertIn("Summary of 4 runs named 'adam*'", text)
        self.assertIn("adamw (3 runs)", text)
        for run in data["runs"]:
            self.assertIn(run["id"], text)
        for line in text.splitlines():
            self.assertLessEqual(len(line), 100, line)
        # compare --group gives the same table; markdown too.
        self.assertEqual(self.run_gw("compare", "--group", "adam*").stdout, text)
        md = self.run_gw("compare", "--group", "adam*", "--format", "markdown").stdout
        self.assertIn("| name | id | started |", md)
        self.assertIn("### Repeats averaged", md)

        # More than four runs given one by one: the same summary, one row each.
        ids = [run["id"] for run in self.runs()]
        r = self.run_gw("compare", *ids)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Summary of 5 runs given on the command line", r.stdout)


class GroupAfterAnInterruptedMatrix(GpuwatchTestCase):
    """Issue 22 item 16: after an interrupted and resumed matrix, `report --group` averaged the killed cells
    into the repeats (duration 3.6 ± 3.7 s from a 1.0 s killed run and a 6.3 s good one) and cut the names to
    `lr=3e-4,s…`, which hid which cell a row was."""

    def test_runs_that_did_not_finish_are_left_out_and_names_are_whole(self):
        names = ["resnet50_lr=3e-4,seed=1", "resnet50_lr=3e-4,seed=2"]
        for name in names:
            record(self, name, QUICK + ";gpu*.util=80", seconds="0.8")
        # The cells the interrupt reached: a command killed by the signal, one that exited on it
        # (Python's KeyboardInterrupt: 130), and a recorder killed itself (stored as interrupted).
        killed = self.run_gw("record", "--interval", "0.05", "--name", names[0], "--no-summary", "--",
                             "sh", "-c", "sleep 0.2; kill -TERM $$")
        self.assertNotEqual(killed.returncode, 0)
        failed = self.run_gw("record", "--interval", "0.05", "--name", names[0], "--no-summary", "--",
                             "sh", "-c", "sleep 0.2; exit 130")
        self.assertEqual(failed.returncode, 130, failed.stderr)
        record(self, names[1], QUICK + ";gpu*.util=80", seconds="0.2")
        last = self.runs()[-1]["id"]
        with sqlite3.connect(self.store) as db:
            db.execute("UPDATE runs SET status = 'interrupted', end_reason = 'interrupted' WHERE public_id = ?",
                       (last,))
        db.close()

        r = self.run_gw("report", "--group", "resnet50*", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual(len(data["runs"]), 2)
        self.assertTrue(all(run["outcome"] == "exit 0" for run in data["runs"]), data["runs"])
        self.assertEqual(data["left_out_count"], 3)
        self.assertEqual(sorted(run["outcome"] for run in data["left_out"]),
                         ["exit 130", "interrupted", "killed by signal 15 (SIGTERM)"])
        self.assertIn(last, [run["id"] for run in data["left_out"]])
        # Each name ran once to its end: no repeats, so nothing averaged with a killed run.
        self.assertEqual(data["repeats"], [])
        durations = [run["duration_s"] for run in data["runs"]]
        self.assertTrue(all(d > 0.7 for d in durations), durations)

        text = self.run_gw("report", "--group", "resnet50*").stdout
        self.assertIn("Summary of 2 runs named 'resnet50*' that ran to their end", text)
        self.assertIn("3 runs that did not finish are left out", text)
        self.assertIn("Left out: 3 runs that did not finish", text)
        self.assertNotIn("…", text)  # no name is cut
        for line in text.splitlines():
            self.assertLessEqual(len(line), 100, line)
        # The distinguishing end of each name is in the runs table, on the row or the line under it.
        table = text.split("\n\n")[1]
        self.assertIn("seed=1", table)
        self.assertIn("seed=2", table)
        self.assertEqual(self.run_gw("compare", "--group", "resnet50*").stdout, text)


class RecordCompareWithAndGraphs(GpuwatchTestCase):
    """record --compare-with prints the comparison; --generate-graphs writes the picture."""

    def test_compare_with_a_stored_run_prints_the_comparison_at_the_end(self):
        record(self, "adamw", ADAMW)
        out_dir = os.path.join(self.tmp, "out")
        r = self.run_gw("record", "--interval", "0.05", "--name", "adamwprune", "--no-summary",
                        "--compare-with", "adamw", "--output-dir", out_dir, "--generate-graphs",
                        "--", "sleep", "2", scenario=ADAMWPRUNE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("B relative to A", r.stderr)
        # 7.5 % at the steady level; the ramp at the start moves it by a tenth with timing.
        self.assertRegex(r.stderr, r"B \(adamwprune\) uses 7\.[4-7] % less GPU memory")
        plots = [f for f in os.listdir(out_dir) if f.endswith("_plot.png")]
        self.assertEqual(len(plots), 1, os.listdir(out_dir))
        with open(os.path.join(out_dir, plots[0]), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("_plot.png", r.stderr)

    def test_unknown_baseline_fails_before_the_command_runs(self):
        marker = os.path.join(self.tmp, "ran")
        r = self.run_gw("record", "--no-summary", "--compare-with", "no-such-run", "--", "touch", marker,
                        scenario=QUICK)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no-such-run", r.stderr)
        self.assertFalse(os.path.exists(marker))

    def test_graphs_need_an_output_dir(self):
        r = self.run_gw("record", "--generate-graphs", "--", "true", scenario=QUICK)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--output-dir", r.stderr)
