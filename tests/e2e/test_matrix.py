"""matrix: a grid of recorded runs, GPUs shared out between cells, interrupt and resume, status."""
import json
import os
import signal
import subprocess
import sys
import time

from harness import GpuwatchTestCase, QUICK

FOUR_GPUS = QUICK + ";gpu_count=4"

# Each cell appends one JSON line: its values, CUDA_VISIBLE_DEVICES and when
# it started and ended (wall clock, for the overlap check). With a file
# named by --block present it waits until the file is gone (or 60 s).
PROBE = r"""
import json, os, sys, time
log, block, values = sys.argv[1], sys.argv[2], sys.argv[3:]
start = time.time()
open(log + ".started." + "_".join(values), "w").close()
deadline = time.time() + 60
while os.path.exists(block) and time.time() < deadline:
    time.sleep(0.05)
time.sleep(0.2)
with open(log, "a") as f:
    f.write(json.dumps({"values": values, "cvd": os.environ.get("CUDA_VISIBLE_DEVICES"),
                        "start": start, "end": time.time()}) + "\n")
sys.exit(int(os.environ.get("PROBE_EXIT_" + "_".join(values), "0")))
"""


class MatrixTestCase(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        self.probe = os.path.join(self.tmp, "probe.py")
        with open(self.probe, "w") as f:
            f.write(PROBE)
        self.log = os.path.join(self.tmp, "probe.log")
        self.block = os.path.join(self.tmp, "block")

    def grid_cmd(self, *params):
        return [sys.executable, self.probe, self.log, self.block] + ["{%s}" % p for p in params]

    def probe_lines(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def matrix(self, out, *flags, scenario=FOUR_GPUS, timeout=120, **extra):
        return self.run_gw("matrix", "--param", "a=1,2", "--param", "b=x,y,z", "--interval", "0.1",
                           "--output-dir", out, *flags, "--", *self.grid_cmd("a", "b"), scenario=scenario,
                           timeout=timeout, **extra)

    def interrupt_when(self, p, predicate, what):
        """Ctrl-C to the matrix `p` once `predicate` holds; its stderr once it has exited."""
        try:
            self.wait_for(predicate, timeout=60, what=what)
            os.kill(p.pid, signal.SIGINT)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return err

    def read_json(self, *parts):
        return json.loads(self.read_text(*parts))

    def read_text(self, *parts):
        with open(os.path.join(*parts)) as f:
            return f.read()


class MatrixRuns(MatrixTestCase):
    def check_layout(self, out):
        names = [f"a={a},b={b}" for a in "12" for b in "xyz"]
        matrix = self.read_json(out, "matrix.json")
        self.assertEqual(matrix["schema_version"], 1)
        self.assertEqual([p["name"] for p in matrix["params"]], ["a", "b"])
        cells = {}
        for name in names:
            self.assertTrue(os.path.exists(os.path.join(out, name, "output.log")), name)
            seeds = os.listdir(os.path.join(out, name))
            self.assertTrue(any(f.startswith("gpu_stats_") and f.endswith("_summary.txt") for f in seeds), seeds)
            cell = self.read_json(out, name, "cell.json")
            self.assertEqual(cell["state"], "done", cell)
            self.assertEqual(cell["exit_status"], 0)
            self.assertRegex(cell["run_id"], r"^[0-9a-f]{12}$")
            self.assertGreater(cell["duration_s"], 0.1)
            cells[name] = cell
        summary = self.read_json(out, "summary.json")
        self.assertEqual(summary["schema_version"], 1)
        self.assertEqual([c["config"] for c in summary["configs"]], names)
        for c in summary["configs"]:
            self.assertEqual(c["succeeded"], 1)
            metrics = c["metrics"]
            self.assertEqual(metrics["power_watts_mean"]["n"], 1)
            self.assertGreater(metrics["power_watts_mean"]["mean"], 0)
            for key in ("gpu_util_percent_mean", "mem_used_bytes_mean", "energy_joules", "duration_s"):
                self.assertIn(key, metrics)
        self.assertEqual(summary["unsuccessful"], [])
        self.assertIn("every cell succeeded", self.read_text(out, "summary.txt"))
        return cells

    def test_serial_cells_get_every_gpu(self):
        out = os.path.join(self.tmp, "serial")
        r = self.matrix(out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_layout(out)
        lines = self.probe_lines()
        self.assertEqual(sorted(tuple(l["values"]) for l in lines), [(a, b) for a in "12" for b in "xyz"])
        self.assertEqual({l["cvd"] for l in lines}, {"0,1,2,3"})
        self.assertIn("6/6 done", r.stderr)
        # Each cell is a stored run named after its values, its GPUs those of the cell.
        rep = self.report("a=2,b=y")
        self.assertEqual(len(rep["devices"]), 4)

    def test_parallel_cells_never_share_a_gpu(self):
        out = os.path.join(self.tmp, "parallel")
        r = self.matrix(out, "--parallel", "2", "--gpus-per-cell", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        cells = self.check_layout(out)
        lines = self.probe_lines()
        self.assertEqual(len(lines), 6)
        for l in lines:
            name = f"a={l['values'][0]},b={l['values'][1]}"
            self.assertIn(l["cvd"], {"0", "1"})  # the lowest free GPU of two
            self.assertEqual(cells[name]["gpus"], [int(l["cvd"])])
        # Any two cells that ran at the same time had different GPUs.
        for i, p in enumerate(lines):
            for q in lines[i + 1:]:
                if p["start"] < q["end"] and q["start"] < p["end"]:
                    self.assertNotEqual(p["cvd"], q["cvd"], (p, q))
        # Each cell's run recorded its own GPU only.
        self.assertEqual([d["gpu"] for d in self.report("a=1,b=z")["devices"]], cells["a=1,b=z"]["gpus"])

    def test_a_failing_cell_is_reported_and_exits_1(self):
        out = os.path.join(self.tmp, "fail")
        r = self.matrix(out, PROBE_EXIT_2_y="3")
        self.assertEqual(r.returncode, 1, r.stderr)
        cell = self.read_json(out, "a=2,b=y", "cell.json")
        self.assertEqual(cell["state"], "failed")
        self.assertEqual(cell["exit_status"], 3)
        summary = self.read_json(out, "summary.json")
        self.assertEqual([(u["cell"], u["state"], u["exit_status"]) for u in summary["unsuccessful"]],
                         [("a=2,b=y", "failed", 3)])
        self.assertIn("1 failed", r.stderr)
        self.assertIn("a=2,b=y: exit status 3", self.read_text(out, "summary.txt"))

    def test_interrupt_then_resume_runs_only_what_was_left(self):
        out = os.path.join(self.tmp, "resume")
        # Cell a=2 waits while block2 exists: the matrix is stopped there.
        open(self.block + "2", "w").close()
        p = self.start_gw("matrix", "--param", "a=1,2,3", "--interval", "0.1", "--output-dir", out, "--",
                          sys.executable, self.probe, self.log, self.block + "{a}", "{a}", scenario=FOUR_GPUS)
        err = self.interrupt_when(p, lambda: os.path.exists(self.log + ".started.2"), "cell a=2 to start")
        self.assertEqual(p.returncode, 130, err)
        self.assertEqual([l["values"] for l in self.probe_lines()], [["1"]])
        self.assertEqual(self.read_json(out, "a=1", "cell.json")["state"], "done")
        self.assertEqual(self.read_json(out, "a=2", "cell.json")["state"], "interrupted")
        self.assertFalse(os.path.exists(os.path.join(out, "a=3")))
        summary = self.read_json(out, "summary.json")
        self.assertEqual([(u["cell"], u["state"]) for u in summary["unsuccessful"]],
                         [("a=2", "interrupted"), ("a=3", "pending")])
        # The pictures are written with the summary, from the cell that succeeded.
        self.assertTrue(os.path.exists(os.path.join(out, "graphs", "training_memory_comparison.png")))
        self.assertTrue(any(f.endswith("_plot.png") for f in os.listdir(os.path.join(out, "a=2"))))

        r = self.run_gw("matrix", "status", out, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        status = json.loads(r.stdout)
        self.assertEqual(status["schema_version"], 1)
        self.assertEqual((status["total"], status["done"], status["interrupted"], status["pending"]), (3, 1, 1, 1))
        self.assertEqual([c["state"] for c in status["cells"]], ["done", "interrupted", "pending"])
        r = self.run_gw("matrix", "status", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("matrix: 1/3 done, 0 running, 1 left, 1 interrupted", r.stdout)
        self.assertRegex(r.stdout, r"interrupted +a=2")

        os.remove(self.block + "2")
        r = self.run_gw("matrix", "--resume", out, scenario=FOUR_GPUS, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        # a=1 ran once, before the interrupt; a=2 again, a=3 for the first time.
        self.assertEqual(sorted(l["values"][0] for l in self.probe_lines()), ["1", "2", "3"])
        status = json.loads(self.run_gw("matrix", "status", out, "--format", "json").stdout)
        self.assertEqual(status["done"], 3)
        self.assertEqual(self.read_json(out, "summary.json")["unsuccessful"], [])
        # A second matrix in the same folder is refused: --resume goes on with it.
        r = self.run_gw("matrix", "--param", "a=1", "--output-dir", out, "--", "echo", "{a}", scenario=FOUR_GPUS)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--resume", r.stderr)

    def test_usage_errors_exit_2(self):
        cmd = self.grid_cmd("a", "b")
        for flags, words in [
            (["--param", "a=1", "--param", "b=2", "--", "echo", "{a}", "{c}"], "{c}"),
            (["--param", "a=1", "--param", "b=2", "--", "echo", "{a}"], "--param b is never used"),
            (["--param", "a=1", "--param", "a=2", "--", "echo", "{a}"], "given twice"),
            (["--param", "a=", "--", "echo", "{a}"], "no values"),
            (["--param", "a=1", "--repeat", "x", "--", "echo", "{a}"], "--repeat"),
            (["--param", "a=1,2", "--param", "b=1", "--parallel", "3", "--gpus-per-cell", "2", "--", *cmd], "4"),
            (["--param", "a=1", "--"], "no command"),
        ]:
            r = self.run_gw("matrix", "--output-dir", os.path.join(self.tmp, "bad"), *flags, scenario=FOUR_GPUS)
            self.assertEqual(r.returncode, 2, (flags, r.stderr))
            self.assertIn(words, r.stderr, flags)
            self.assertNotIn("Traceback", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad")))
        self.assertEqual(self.runs(), [])
        r = self.run_gw("matrix", "status", os.path.join(self.tmp, "nothing"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no matrix.json", r.stderr)


GRID_TOML = """# a 2x3 grid less one combination
[params]
a = [1, 2]
b = ["x", "y", "z"]

[[exclude]]
a = 2
b = "z"
"""


class MatrixGridFile(MatrixTestCase):
    def write_grid(self, text, name="grid.toml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_grid_file_runs_its_cells_less_the_excluded(self):
        out = os.path.join(self.tmp, "grid")
        r = self.run_gw("matrix", "--grid", self.write_grid(GRID_TOML), "--interval", "0.1", "--parallel", "4",
                        "--gpus-per-cell", "1", "--output-dir", out, "--", *self.grid_cmd("a", "b"),
                        scenario=FOUR_GPUS, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = ["a=1,b=x", "a=1,b=y", "a=1,b=z", "a=2,b=x", "a=2,b=y"]
        self.assertEqual(sorted(tuple(l["values"]) for l in self.probe_lines()),
                         [tuple(n.replace("a=", "").replace("b=", "").split(",")) for n in names])
        self.assertEqual([c["config"] for c in self.read_json(out, "summary.json")["configs"]], names)
        self.assertEqual(self.read_json(out, "matrix.json")["exclude"], [{"a": "2", "b": "z"}])
        self.assertFalse(os.path.exists(os.path.join(out, "a=2,b=z")))
        status = json.loads(self.run_gw("matrix", "status", out, "--format", "json").stdout)
        self.assertEqual((status["total"], status["done"]), (5, 5))

    def test_bad_grid_files_exit_2_naming_file_and_line(self):
        cmd = self.grid_cmd("a", "b")
        for text, flags, words in [
            ("[params]\na = [1, 2\n", [], "bad.toml:2:"),
            ("[params]\na = []\nb = [1]\n", [], "bad.toml:2: param a: the list is empty"),
            ("[params]\na = [1]\nb = [[1]]\n", [], "bad.toml:3: param b: expected a string, number or boolean"),
            ("[params]\na = [1]\nb = [1]\n[[exclude]]\nc = 1\n", [], "bad.toml:5: exclude: c is no param"),
            ("[params]\na = [1]\nb = [1]\n[[exclude]]\na = 3\n", [], "bad.toml:5: exclude: a = 3 is no value"),
            ("[params]\na = [1]\n", ["--param", "a=2", "--param", "b=1"], "--param a is given twice"),
        ]:
            path = self.write_grid(text, "bad.toml")
            r = self.run_gw("matrix", "--grid", path, *flags, "--output-dir", os.path.join(self.tmp, "bad"), "--",
                            *cmd, scenario=FOUR_GPUS)
            self.assertEqual(r.returncode, 2, (text, r.stderr))
            self.assertIn(words, r.stderr, text)
        r = self.run_gw("matrix", "--grid", os.path.join(self.tmp, "missing.toml"), "--", *cmd)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot be read", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad")))


class MatrixSlurm(MatrixTestCase):
    def test_slurm_script_played_in_a_shell_then_collected(self):
        """No Slurm here: the job array is played by running the script once per task index."""
        out = os.path.join(self.tmp, "slurm")
        # A value with a quote, a blank and a $: the script's arrays must quote it.
        r = self.run_gw("matrix", "--param", "a=1,2", "--param", "b=it's $x,y", "--gpus-per-cell", "1", "--slurm",
                        "--interval", "0.1", "--output-dir", out, "--", *self.grid_cmd("a", "b"), scenario=FOUR_GPUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        script = os.path.join(out, "slurm.sbatch")
        self.assertIn("sbatch " + script, r.stdout)
        self.assertEqual(self.probe_lines(), [])  # nothing ran
        self.assertEqual(self.read_json(out, "matrix.json")["params"][1]["values"], ["it's $x", "y"])
        text = self.read_text(script)
        self.assertIn("#SBATCH --array=0-3\n", text)
        self.assertIn("#SBATCH --gpus-per-task=1\n", text)
        check = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

        for task in range(4):
            p = subprocess.run(["bash", script], env=self.env(FOUR_GPUS, SLURM_ARRAY_TASK_ID=str(task)),
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"task {task}: cell ", p.stdout)
        self.assertIn("cell a=1,b=it's $x: ", subprocess.run(
            ["bash", script], env=self.env(FOUR_GPUS, SLURM_ARRAY_TASK_ID="0"), capture_output=True, text=True).stdout)
        self.assertEqual(sorted(tuple(l["values"]) for l in self.probe_lines()),
                         [("1", "it's $x"), ("1", "y"), ("2", "it's $x"), ("2", "y")])
        bad = subprocess.run(["bash", script], env=self.env(FOUR_GPUS, SLURM_ARRAY_TASK_ID="4"), capture_output=True,
                             text=True)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        stores = [f for f in os.listdir(os.path.join(out, "stores")) if f.endswith(".db")]
        self.assertEqual(len(stores), 1, stores)
        self.assertFalse(os.path.exists(os.path.join(out, "summary.json")))

        r = self.run_gw("matrix", "collect", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        summary = self.read_json(out, "summary.json")
        self.assertEqual([c["config"] for c in summary["configs"]],
                         ["a=1,b=it's $x", "a=1,b=y", "a=2,b=it's $x", "a=2,b=y"])
        for c in summary["configs"]:
            self.assertEqual(c["succeeded"], 1)
            self.assertGreater(c["metrics"]["power_watts_mean"]["mean"], 0)
        self.assertIn("every cell succeeded", self.read_text(out, "summary.txt"))
        # The tasks drew each cell's timeline; collect drew DIR/graphs/ from the nodes' stores.
        self.assertEqual(sorted(os.listdir(os.path.join(out, "graphs"))), sorted(GRAPHS))
        self.assertTrue(any(f.endswith("_plot.png") for f in os.listdir(os.path.join(out, "a=1,b=y"))))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GRAPHS = ["gpu_memory_timeline.png", "training_memory_comparison.png", "per_gpu_memory_breakdown.png",
          "gpu_load_balance_analysis.png"]
# Memory that differs between GPUs, so that the bars have heights.
MEMORY_GPUS = FOUR_GPUS + ";gpu0.mem_used_mib=1000;gpu1.mem_used_mib=3000;gpu2.mem_used_mib=1500;gpu3.mem_used_mib=2000"


class MatrixPictures(MatrixTestCase):
    def check_png(self, path):
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], PNG_SIGNATURE, path)
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        self.assertGreaterEqual(width, 800, path)
        self.assertGreaterEqual(height, 600, path)
        self.assertGreater(len(data), 10000, path)  # more than a blank page

    def cell_plots(self, out, name):
        return [f for f in os.listdir(os.path.join(out, name)) if f.startswith("gpu_stats_") and f.endswith("_plot.png")]

    def run_2x2(self, out, **extra):
        return self.run_gw("matrix", "--param", "a=1,2", "--param", "b=x,y", "--repeat", "2", "--parallel", "2",
                           "--gpus-per-cell", "2", "--interval", "0.1", "--output-dir", out, "--",
                           *self.grid_cmd("a", "b"), scenario=MEMORY_GPUS, timeout=120, **extra)

    def test_cells_and_graphs_have_their_pictures_and_collect_draws_them_again(self):
        out = os.path.join(self.tmp, "pictures")
        r = self.run_2x2(out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("warning", r.stderr)
        for a in "12":
            for b in "xy":
                for rep in "12":
                    name = f"a={a},b={b},rep={rep}"
                    plots = self.cell_plots(out, name)
                    # Named as record --generate-graphs names it, beside the cell's seed files.
                    self.assertEqual(len(plots), 1, plots)
                    self.assertTrue(plots[0].startswith(f"gpu_stats_{name}_"), plots)
                    self.assertTrue(os.path.exists(os.path.join(out, name, plots[0][:-len("_plot.png")] + ".json")))
                    self.check_png(os.path.join(out, name, plots[0]))
        self.assertEqual(sorted(os.listdir(os.path.join(out, "graphs"))), sorted(GRAPHS))
        for g in GRAPHS:
            self.check_png(os.path.join(out, "graphs", g))

        # matrix collect writes them from the cells' runs, as the end of the matrix did.
        for g in GRAPHS:
            os.remove(os.path.join(out, "graphs", g))
        r = self.run_gw("matrix", "collect", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for g in GRAPHS:
            self.check_png(os.path.join(out, "graphs", g))

    def test_without_cairo_one_warning_no_picture_and_the_matrix_succeeds(self):
        out = os.path.join(self.tmp, "no_cairo")
        r = self.run_2x2(out, GPUWATCH_CAIRO_LIBRARY=os.path.join(self.tmp, "no", "libcairo.so.2"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count("warning"), 1, r.stderr)
        self.assertIn("no pictures", r.stderr)
        self.assertIn("cairo", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "graphs")))
        self.assertEqual(self.cell_plots(out, "a=1,b=x,rep=1"), [])
        self.assertEqual(len(self.read_json(out, "summary.json")["configs"]), 4)

    def test_no_successful_cell_no_picture(self):
        out = os.path.join(self.tmp, "all_fail")
        r = self.run_gw("matrix", "--param", "a=1", "--interval", "0.1", "--output-dir", out, "--",
                        *self.grid_cmd("a"), scenario=FOUR_GPUS, PROBE_EXIT_1="3")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no pictures", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "graphs")))
        # The failed cell's run still has its timeline.
        self.assertEqual(len(self.cell_plots(out, "a=1")), 1)


def alive(pid):
    """Whether pid runs: a zombie (an orphan whose reaper is slow, or absent in a container) does not."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return False
    return text[text.rindex(")") + 2] not in "ZX"


# A cell that leaves a background child and a setsid daemon running, each
# writing its pid to a file; the second cell notes whether they still ran
# when it started (on the same GPUs).
LEAVER = r"""
import os, subprocess, sys, time
out, cell = sys.argv[1], sys.argv[2]
if cell == "1":
    subprocess.run(["sh", "-c", f"sleep 1000 & echo $! > {out}/bg.pid; setsid sleep 1000 & echo $! > {out}/setsid.pid"])
    while not (os.path.exists(f"{out}/bg.pid") and os.path.exists(f"{out}/setsid.pid")):
        time.sleep(0.05)
    time.sleep(0.2)
else:
    def running(name):
        pid = int(open(f"{out}/{name}.pid").read())
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] not in "ZX"
        except OSError:
            return False
    with open(f"{out}/second.txt", "w") as f:
        f.write(f"{running('bg')} {running('setsid')}\n")
"""


class MatrixCellProcesses(MatrixTestCase):
    def test_background_and_setsid_children_end_with_their_cell(self):
        out = os.path.join(self.tmp, "leftovers")
        script = os.path.join(self.tmp, "leaver.py")
        with open(script, "w") as f:
            f.write(LEAVER)
        pids = []
        try:
            r = self.run_gw("matrix", "--param", "c=1,2", "--interval", "0.1", "--output-dir", out, "--",
                            sys.executable, script, self.tmp, "{c}", scenario=FOUR_GPUS, timeout=120)
            pids = [int(self.read_text(self.tmp, n + ".pid")) for n in ("bg", "setsid")]
            self.assertEqual(r.returncode, 0, r.stderr)
            # Both were gone before the second cell started on the same GPUs.
            self.assertEqual(self.read_text(self.tmp, "second.txt"), "False False\n")
            self.assertFalse(any(alive(p) for p in pids))
            cell = self.read_json(out, "c=1", "cell.json")
            self.assertEqual(cell["state"], "done")
            left = sorted((p["pid"], p["found_by"], p["ended_by"]) for p in cell["leftover_processes"])
            self.assertEqual(left, sorted([(pids[0], "session", "SIGTERM"), (pids[1], "environment", "SIGTERM")]))
            self.assertEqual(self.read_json(out, "c=2", "cell.json")["leftover_processes"], [])
            self.assertIn("cell c=1 left 2 processes running, ended", r.stderr)
            self.assertIn("left its session, found by its environment, SIGTERM", self.read_text(out, "c=1", "output.log"))
            self.assertIn("processes cells left running when they ended", self.read_text(out, "summary.txt"))
            self.assertEqual([c["cell"] for c in self.read_json(out, "summary.json")["left_behind"]], ["c=1"])
        finally:
            for p in pids:
                if alive(p):
                    os.kill(p, signal.SIGKILL)

    def test_a_cell_that_ignores_sigterm_times_out_and_the_matrix_goes_on(self):
        out = os.path.join(self.tmp, "timeout")
        start = time.monotonic()
        r = self.run_gw("matrix", "--param", "c=stuck,quick", "--cell-timeout", "1s", "--stop-grace", "1s",
                        "--interval", "0.1", "--output-dir", out, "--", "sh", "-c",
                        "if [ {c} = stuck ]; then trap '' TERM INT; sleep 1000; true; fi", scenario=FOUR_GPUS,
                        timeout=60)
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertLess(elapsed, 30)
        stuck = self.read_json(out, "c=stuck", "cell.json")
        self.assertEqual(stuck["state"], "timed_out", stuck)
        self.assertEqual(stuck["exit_status"], 137)  # its command SIGKILLed after the grace; record stored the run
        self.assertIn("timed out after 1s (--cell-timeout): stopped with SIGTERM, SIGKILL 1s later", stuck["failure"])
        self.assertRegex(stuck["run_id"], r"^[0-9a-f]{12}$")
        self.assertEqual(self.read_json(out, "c=quick", "cell.json")["state"], "done")
        self.assertIn("1 timed out", r.stderr)
        status = json.loads(self.run_gw("matrix", "status", out, "--format", "json").stdout)
        self.assertEqual((status["done"], status["timed_out"]), (1, 1))
        self.assertEqual([(u["cell"], u["state"]) for u in self.read_json(out, "summary.json")["unsuccessful"]],
                         [("c=stuck", "timed_out")])
        self.assertEqual(self.read_json(out, "matrix.json")["cell_timeout_s"], 1)

    def test_ctrl_c_ends_a_cell_that_ignores_it(self):
        out = os.path.join(self.tmp, "ignores")
        p = self.start_gw("matrix", "--param", "c=1", "--stop-grace", "1s", "--interval", "0.1", "--output-dir", out,
                          "--", "sh", "-c", f"trap '' TERM INT; touch {self.tmp}/{{c}}.started; sleep 1000; true",
                          scenario=FOUR_GPUS)
        err = self.interrupt_when(p, lambda: os.path.exists(os.path.join(self.tmp, "1.started")), "the cell")
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("SIGKILL to its 2 processes", err)
        self.assertEqual(self.read_json(out, "c=1", "cell.json")["state"], "interrupted")

    def test_new_processes_on_the_cells_gpus_are_reported_not_ended(self):
        # The fake driver lists one more process after each call (pids 900000 and up, none of them
        # real): they are new on the GPU after the cell, and nothing proves them the cell's.
        out = os.path.join(self.tmp, "holders")
        r = self.run_gw("matrix", "--param", "c=1", "--interval", "0.1", "--output-dir", out, "--", "true", "{c}",
                        scenario=FOUR_GPUS + ";gpu0.process_growth=1;gpu0.process_growth_max=100", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        after = self.read_json(out, "c=1", "cell.json")["gpu_processes_after"]
        self.assertTrue(after, after)
        self.assertTrue(all(p["gpu"] == 0 and p["pid"] >= 900000 for p in after), after)
        self.assertIn("not provably its own, left running", r.stderr)
        self.assertIn("not provably theirs (left running)", self.read_text(out, "summary.txt"))


class MatrixLimits(MatrixTestCase):
    def test_a_billion_cells_are_refused_before_anything_is_allocated(self):
        params = []
        for p in range(9):
            params += ["--param", f"p{p}=" + ",".join(str(v) for v in range(10))]
        cmd = ["echo"] + ["{p%d}" % p for p in range(9)]
        for extra in ([], ["--slurm"]):
            out = os.path.join(self.tmp, "huge")
            start = time.monotonic()
            r = self.run_gw("matrix", *params, *extra, "--output-dir", out, "--", *cmd, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertLess(time.monotonic() - start, 10)
            self.assertIn("1,000,000,000 combinations", r.stderr)
            self.assertIn("over the limit of 10,000,000", r.stderr)
            self.assertNotIn("bad_alloc", r.stderr)
            self.assertFalse(os.path.exists(out))
        r = self.run_gw("matrix", "--param", "a=" + ",".join(str(v) for v in range(1000)), "--repeat", "1000",
                        "--output-dir", os.path.join(self.tmp, "repeats"), "--", "echo", "{a}")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("1,000,000 cells (1,000 combinations x --repeat 1000), over the limit of 100,000 cells",
                      r.stderr)

    def test_slurm_splits_a_large_matrix_into_arrays_below_max_array_size(self):
        out = os.path.join(self.tmp, "big")
        values = ",".join(str(v) for v in range(50))
        r = self.run_gw("matrix", "--param", f"a={values}", "--param", f"b={values}", "--slurm", "--interval", "0.1",
                        "--output-dir", out, "--", *self.grid_cmd("a", "b"), scenario=FOUR_GPUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the matrix has 2,500 cells, more than one Slurm job array may hold (1001 tasks", r.stdout)
        scripts = sorted(f for f in os.listdir(out) if f.endswith(".sbatch"))
        self.assertEqual(scripts, ["slurm-1.sbatch", "slurm-2.sbatch", "slurm-3.sbatch"])
        for name, first, last in (("slurm-1.sbatch", 0, 1000), ("slurm-2.sbatch", 1001, 1000),
                                  ("slurm-3.sbatch", 2002, 497)):
            text = self.read_text(out, name)
            self.assertIn(f"#SBATCH --array=0-{last}\n", text)
            self.assertIn(f"FIRST={first}\n", text)
            self.assertIn("sbatch " + os.path.join(out, name), r.stdout)
            check = subprocess.run(["bash", "-n", os.path.join(out, name)], capture_output=True, text=True)
            self.assertEqual(check.returncode, 0, check.stderr)
        # Task 3 of the third array is cell 2005: a=40, b=5.
        p = subprocess.run(["bash", os.path.join(out, "slurm-3.sbatch")],
                           env=self.env(FOUR_GPUS, SLURM_ARRAY_TASK_ID="3"), capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("task 2005: cell a=40,b=5: ", p.stdout)
        self.assertEqual([l["values"] for l in self.probe_lines()], [["40", "5"]])
        bad = subprocess.run(["bash", os.path.join(out, "slurm-3.sbatch")],
                             env=self.env(FOUR_GPUS, SLURM_ARRAY_TASK_ID="498"), capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        # A cluster whose MaxArraySize is larger takes them in one array.
        out2 = os.path.join(self.tmp, "one")
        r = self.run_gw("matrix", "--param", f"a={values}", "--param", f"b={values}", "--slurm",
                        "--slurm-max-array-size", "5000", "--output-dir", out2, "--", *self.grid_cmd("a", "b"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("#SBATCH --array=0-2499\n", self.read_text(out2, "slurm.sbatch"))
