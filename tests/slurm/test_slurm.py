#!/usr/bin/env python3
"""`gpuwatch matrix --slurm` on a real single-node Slurm cluster (tests/slurm/slurm_cluster.py): the
job array is submitted with sbatch, its tasks run `gpuwatch matrix run-cell` (each a
`gpuwatch record` under the fake NVML library) with the GPUs Slurm grants them, `matrix status`
follows them, `matrix collect` writes the summary and pictures; the stored runs carry the real job
ids, `report --job` reads the tasks' stores, and `scancel` of a running task leaves its cell
interrupted. Run by ctest as slurm.cluster; exits 77 (skipped) with the reason when Slurm's
packages are missing or its daemons cannot start here."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# The tasks run in other folders: paths given relative to where the test started made absolute.
for _name in ("GPUWATCH_BIN", "FAKE_NVML", "FAKE_NVML_OLD", "GPUWATCH_FIXTURES", "GPUWATCH_FIXTURE_TREES"):
    if "/" in os.environ.get(_name, ""):
        os.environ[_name] = os.path.abspath(os.environ[_name])
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
sys.path.insert(0, HERE)
from harness import BIN, GpuwatchTestCase, QUICK  # noqa: E402
from slurm_cluster import SlurmCluster, Unavailable  # noqa: E402

SKIP = 77
GPUS = 4
MAX_ARRAY_SIZE = 5  # the cluster's MaxArraySize
FOUR_GPUS = QUICK + f";gpu_count={GPUS}"
# Generous: the tasks run beside other tests on two shared cores.
JOB_TIMEOUT_S = 90
GRAPHS = ["gpu_memory_timeline.png", "training_memory_comparison.png", "per_gpu_memory_breakdown.png",
          "gpu_load_balance_analysis.png"]
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED",
            "BOOT_FAIL", "DEADLINE"}

# A cell's command: notes what it was given (its values, the job's variables, its GPUs, its working
# folder) in <log>/<values>.json, waits while the file <log>/block exists (60 s at most), and exits
# with PROBE_EXIT_<values> (0 by default). With PROBE_IGNORE_TERM_<values> set it ignores SIGTERM.
PROBE = r"""
import json, os, signal, sys, time
log, values = sys.argv[1], "_".join(sys.argv[2:])
if os.environ.get("PROBE_IGNORE_TERM_" + values):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
names = ["SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES",
         "GPUWATCH_MATRIX_CELL", "GPUWATCH_NVML_LIBRARY"]
facts = {"values": sys.argv[2:], "cwd": os.getcwd(), "env": {n: os.environ.get(n) for n in names}}
with open(os.path.join(log, values + ".json"), "w") as f:
    json.dump(facts, f)
deadline = time.time() + 60
while os.path.exists(os.path.join(log, "block")) and time.time() < deadline:
    time.sleep(0.05)
sys.exit(int(os.environ.get("PROBE_EXIT_" + values, "0")))
"""

CLUSTER = None  # started once for every test (main), stopped at the end


class SlurmMatrixTest(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        os.chmod(self.tmp, 0o755)
        self.cluster = CLUSTER
        self.probe_log = os.path.join(self.tmp, "probe")
        os.makedirs(self.probe_log)
        with open(os.path.join(self.tmp, "probe.py"), "w") as f:
            f.write(PROBE)
        # sbatch runs elsewhere than where the matrix was written: the cells must still run in the
        # matrix's folder (the command names probe.py relative to it).
        self.elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(self.elsewhere)

    # -- helpers ----------------------------------------------------------------------------
    def write_matrix(self, out, params, *flags, scripts=("slurm.sbatch",)):
        """`matrix --slurm` in self.tmp, the probe named relative to it: the `sbatch ...` line it
        printed (one per script: `scripts`, in DIR), to be pasted into a shell; a list with several."""
        args = ["matrix"]
        for p in params:
            args += ["--param", p]
        names = [p.split("=", 1)[0] for p in params]
        r = subprocess.run([BIN, *args, *flags, "--slurm", "--interval", "0.1",
                            "--output-dir", out, "--", sys.executable, "probe.py", self.probe_log,
                            *["{%s}" % n for n in names]],
                           env=self.env(FOUR_GPUS), cwd=self.tmp, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("sbatch ")]
        # Quoted for the shell: the folder may have blanks or a #.
        self.assertEqual([shlex.split(line) for line in lines], [["sbatch", os.path.join(out, s)] for s in scripts],
                         r.stdout)
        collect = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("gpuwatch matrix collect")]
        self.assertEqual([shlex.split(line) for line in collect], [["gpuwatch", "matrix", "collect", out]], r.stdout)
        return lines[0] if len(lines) == 1 else lines

    def submit(self, sbatch_line, **extra):
        """The `sbatch ...` line `matrix --slurm` printed, run by a shell in another folder, with the
        fake NVML's variables in the environment sbatch exports (its default, --export=ALL): the job
        array's id."""
        env = self.cluster.env(self.env(FOUR_GPUS, **extra))
        r = subprocess.run(["bash", "-c", sbatch_line], env=env, cwd=self.elsewhere, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, f"{sbatch_line} failed: {r.stderr}\n{self.cluster.log_tails()}")
        m = re.search(r"Submitted batch job (\d+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        return m.group(1)

    def wait_for_tasks(self, job, count, out):
        """Every task of `job` in a terminal state (squeue): {"<job>_<i>": state}."""
        deadline = time.monotonic() + JOB_TIMEOUT_S
        states = {}
        while time.monotonic() < deadline:
            states = self.cluster.job_states(job)
            if len(states) == count and all(s in TERMINAL for s in states.values()):
                return states
            time.sleep(0.25)
        self.fail(f"the array {job} did not end within {JOB_TIMEOUT_S} s: {states}\n{self.task_logs(out)}"
                  f"\n{self.cluster.log_tails()}")

    def task_logs(self, out):
        text = []
        for root, _, files in os.walk(out):
            for name in sorted(files):
                if name.endswith(".log"):
                    with open(os.path.join(root, name), errors="replace") as f:
                        text.append(f"--- {os.path.join(root, name)}:\n{f.read()[-3000:]}")
        return "\n".join(text)

    def status(self, out):
        r = self.run_gw("matrix", "status", out, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def wait_for_cells(self, out, what, predicate):
        """`matrix status` until predicate(status) holds (the tasks write cell.json as they end)."""
        deadline = time.monotonic() + JOB_TIMEOUT_S
        status = {}
        while time.monotonic() < deadline:
            status = self.status(out)
            if predicate(status):
                return status
            time.sleep(0.25)
        self.fail(f"matrix status never showed {what}: {json.dumps(status)}\n{self.task_logs(out)}")

    def wait_until_started(self, job, out, cells):
        """Until the command of each cell (its values) has started, and `matrix status` says so."""
        started = [os.path.join(self.probe_log, f"{values}.json") for values in cells]
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while not all(map(os.path.exists, started)) and time.monotonic() < deadline:
            if any(s in TERMINAL for s in self.cluster.job_states(job).values()):
                break
            time.sleep(0.1)
        self.assertTrue(all(map(os.path.exists, started)),
                        f"the cells {cells} never all started: {self.cluster.job_states(job)}\n{self.task_logs(out)}")
        self.assertEqual(self.status(out)["running"], len(cells))

    def probe_facts(self, values):
        with open(os.path.join(self.probe_log, "_".join(values) + ".json")) as f:
            return json.load(f)

    def read_json(self, *parts):
        with open(os.path.join(*parts)) as f:
            return json.load(f)

    def store_of(self, out):
        stores = [f for f in os.listdir(os.path.join(out, "stores")) if f.endswith(".db")]
        self.assertEqual(stores, [self.cluster.node + ".db"], "one store, named after the node")
        return os.path.join(out, "stores", stores[0])

    def report_json(self, *args):
        r = self.run_gw("report", *args, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    # -- tests ------------------------------------------------------------------------------
    def test_job_array_runs_each_cell_on_its_gpu_then_status_collect_and_report(self):
        # A folder with a blank, a # and a %: sbatch's #SBATCH lines must quote it for the logs.
        out = os.path.join(self.tmp, "matrix 1#x%")
        sbatch = self.write_matrix(out, ["a=1,2", "b=x,y"], "--gpus-per-cell", "1")
        job = self.submit(sbatch, PROBE_EXIT_2_y="3")
        states = self.wait_for_tasks(job, 4, out)
        self.assertEqual(states, {f"{job}_0": "COMPLETED", f"{job}_1": "COMPLETED", f"{job}_2": "COMPLETED",
                                  f"{job}_3": "FAILED"}, self.task_logs(out))
        # The task's exit code (sacct's, scontrol's) is the cell's own, as record's is its command's.
        self.assertEqual(self.cluster.job_info(f"{job}_3")["ExitCode"], "3:0", "a failed cell fails its task")

        status = self.wait_for_cells(out, "every cell ended", lambda s: s["running"] == 0 and s["pending"] == 0)
        self.assertEqual((status["total"], status["done"], status["failed"]), (4, 3, 1), json.dumps(status))
        store = self.store_of(out)
        cells = [("1", "x"), ("1", "y"), ("2", "x"), ("2", "y")]
        for task, values in enumerate(cells):
            name = f"a={values[0]},b={values[1]}"
            facts = self.probe_facts(values)
            env = facts["env"]
            # The real job's variables reached the cell's command, in the matrix's folder.
            self.assertEqual((env["SLURM_ARRAY_JOB_ID"], env["SLURM_ARRAY_TASK_ID"]), (job, str(task)), facts)
            self.assertEqual(env["GPUWATCH_MATRIX_CELL"], name)
            self.assertEqual(facts["cwd"], self.tmp, "the cell runs where `matrix --slurm` was run")
            # The GPU Slurm granted the task is the cell's, and the command is told it.
            granted = [int(g) for g in env["SLURM_JOB_GPUS"].split(",")]
            self.assertEqual(len(granted), 1, env)
            cell = self.read_json(out, name, "cell.json")
            self.assertEqual(cell["gpus"], granted, cell)
            self.assertEqual(env["CUDA_VISIBLE_DEVICES"], str(granted[0]))
            # Slurm's log of the task, where the script says.
            log = os.path.join(out, f"slurm-{job}_{task}.log")
            self.assertTrue(os.path.exists(log), f"no {log}: {os.listdir(out)}")
            with open(log) as f:
                self.assertIn(f"task {task}: cell {name}", f.read())
            # The stored run: the real ids, the task's GPU.
            doc = self.report_json(cell["run_id"], "--store", store)
            self.assertEqual(doc["run"]["job"]["id"], f"{job}_{task}", doc["run"]["job"])
            # ... which Slurm takes for the task whose own SLURM_JOB_ID the command had.
            self.assertEqual(self.cluster.job_info(doc["run"]["job"]["id"])["JobId"], env["SLURM_JOB_ID"])
            self.assertEqual(doc["run"]["job"]["source"], "slurm")
            self.assertEqual([g["gpu"] for g in doc["devices"]], granted)
            self.assertEqual(cell["state"], "failed" if values == ("2", "y") else "done", cell)
        self.assertEqual(self.read_json(out, "a=2,b=y", "cell.json")["exit_status"], 3)

        # report --job over the tasks' stores (the folder of them): a task by its id, and the whole
        # array by the id sbatch printed, as squeue, sacct and scancel take it.
        stores = os.path.join(out, "stores")
        doc = self.report_json("--job", f"{job}_1", "--store", stores)
        self.assertEqual(doc["kind"], "job")
        self.assertEqual([r["name"] for r in doc["runs"]], ["a=1,b=y"])
        self.assertEqual(doc["runs"][0]["host"], self.cluster.node)
        doc = self.report_json("--job", job, "--store", stores)
        self.assertEqual(sorted(r["job"]["id"] for r in doc["runs"]), [f"{job}_{t}" for t in range(4)])
        r = self.run_gw("runs", "--job", job, "--store", store, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(run["name"] for run in json.loads(r.stdout)["runs"]), [f"a={a},b={b}" for a, b in cells])

        r = self.run_gw("matrix", "collect", out)
        self.assertEqual(r.returncode, 1, "a failed cell: collect exits 1\n" + r.stderr)
        summary = self.read_json(out, "summary.json")
        self.assertEqual([c["config"] for c in summary["configs"]], ["a=1,b=x", "a=1,b=y", "a=2,b=x", "a=2,b=y"])
        self.assertEqual([c["succeeded"] for c in summary["configs"]], [1, 1, 1, 0])
        self.assertEqual([(u["cell"], u["state"], u["exit_status"]) for u in summary["unsuccessful"]],
                         [("a=2,b=y", "failed", 3)])
        self.assertEqual(sorted(os.listdir(os.path.join(out, "graphs"))), sorted(GRAPHS))
        self.assertTrue(any(f.endswith("_plot.png") for f in os.listdir(os.path.join(out, "a=1,b=x"))))

    def test_scancel_of_running_tasks_leaves_their_cells_interrupted(self):
        """Slurm's scancel sends SIGTERM to every process of the task at once (then SIGKILL after its
        KillWait, 8 s here): the task's run-cell, the recorder and the command. Cell a=2 ignores
        SIGTERM: run-cell SIGKILLs it after --stop-grace, well before Slurm's SIGKILL would end
        run-cell too."""
        out = os.path.join(self.tmp, "cancelled")
        sbatch = self.write_matrix(out, ["a=1,2"], "--stop-grace", "1s")
        open(os.path.join(self.probe_log, "block"), "w").close()
        job = self.submit(sbatch, PROBE_IGNORE_TERM_2="1")
        self.wait_until_started(job, out, ["1", "2"])
        self.cluster.run("scancel", job)
        states = self.wait_for_tasks(job, 2, out)
        self.assertEqual(states, {f"{job}_0": "CANCELLED", f"{job}_1": "CANCELLED"})
        status = self.wait_for_cells(out, "the cells ended", lambda s: s["running"] == 0)
        self.assertEqual((status["interrupted"], status["done"], status["failed"]), (2, 0, 0), json.dumps(status))
        store = self.store_of(out)
        for task, (name, exit_status, words) in enumerate((("a=1", 143, "interrupted (exit status 143)"),
                                                           ("a=2", 137, "SIGKILL after the grace"))):
            cell = self.read_json(out, name, "cell.json")
            self.assertEqual(cell["state"], "interrupted", cell)
            self.assertEqual(cell["exit_status"], exit_status, cell)
            self.assertIn(words, cell["failure"])
            # The recorder stored the run to its end: the signal that ended the command, the job's id.
            run = self.report_json(cell["run_id"], "--store", store)["run"]
            self.assertEqual((run["status"], run["end_reason"]), ("finished", "signal"), run)
            self.assertEqual(run["exit_signal"], exit_status - 128, run)
            self.assertEqual(run["job"]["id"], f"{job}_{task}")
        r = self.run_gw("matrix", "collect", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual([(u["cell"], u["state"]) for u in self.read_json(out, "summary.json")["unsuccessful"]],
                         [("a=1", "interrupted"), ("a=2", "interrupted")])


    def test_a_task_killed_while_its_cell_stops_leaves_the_cell_interrupted(self):
        """A cell that outlasts Slurm's KillWait after scancel (here a command that ignores SIGTERM and
        --stop-grace 60s, KillWait 8 s): Slurm SIGKILLs every process of the task, run-cell too,
        before the cell ends. Its files say it was interrupted, not `running` for good."""
        out = os.path.join(self.tmp, "killed")
        sbatch = self.write_matrix(out, ["a=1"], "--stop-grace", "60s")
        open(os.path.join(self.probe_log, "block"), "w").close()
        job = self.submit(sbatch, PROBE_IGNORE_TERM_1="1")
        self.wait_until_started(job, out, ["1"])
        self.cluster.run("scancel", job)
        self.assertEqual(self.wait_for_tasks(job, 1, out), {f"{job}_0": "CANCELLED"})
        status = self.status(out)
        self.assertEqual((status["interrupted"], status["running"]), (1, 0), json.dumps(status))
        cell = self.read_json(out, "a=1", "cell.json")
        self.assertEqual(cell["state"], "interrupted", cell)
        self.assertIn("stopped by signal 15 (SIGTERM), and killed before its end was written", cell["failure"])
        self.assertIsNone(cell["exit_status"], cell)


    def test_a_matrix_over_max_array_size_is_split_into_arrays_slurm_accepts(self):
        """Slurm refuses an array index at or above its MaxArraySize (5 on this cluster: indices 0-4):
        a 6-cell matrix as one array is refused by sbatch itself; with --slurm-max-array-size 5 it is
        two scripts, the second's tasks numbered from 0 again, and every cell runs once."""
        one = self.write_matrix(os.path.join(self.tmp, "one"), ["a=1,2,3,4,5,6"])
        r = subprocess.run(["bash", "-c", one], env=self.cluster.env(self.env(FOUR_GPUS)), cwd=self.elsewhere,
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0, "sbatch took --array=0-5 over MaxArraySize 5")
        self.assertIn("array", r.stderr.lower(), r.stderr)

        out = os.path.join(self.tmp, "split")
        lines = self.write_matrix(out, ["a=1,2,3,4,5,6"], "--slurm-max-array-size", str(MAX_ARRAY_SIZE),
                                  scripts=("slurm-1.sbatch", "slurm-2.sbatch"))
        jobs = [self.submit(line) for line in lines]
        self.assertEqual(self.wait_for_tasks(jobs[0], 5, out), {f"{jobs[0]}_{t}": "COMPLETED" for t in range(5)})
        self.assertEqual(self.wait_for_tasks(jobs[1], 1, out), {f"{jobs[1]}_0": "COMPLETED"})
        status = self.wait_for_cells(out, "every cell ended", lambda s: s["running"] == 0 and s["pending"] == 0)
        self.assertEqual((status["total"], status["done"]), (6, 6), json.dumps(status))
        # Cell a=6 is task 0 of the second array.
        env = self.probe_facts(["6"])["env"]
        self.assertEqual((env["SLURM_ARRAY_JOB_ID"], env["SLURM_ARRAY_TASK_ID"]), (jobs[1], "0"))
        r = self.run_gw("matrix", "collect", out)
        self.assertEqual(r.returncode, 0, r.stderr)


def main():
    global CLUSTER
    root = tempfile.mkdtemp(prefix="gpuwatch-slurm-")
    started = time.monotonic()
    try:
        try:
            CLUSTER = SlurmCluster(os.path.join(root, "cluster"), gpus=GPUS, max_array_size=MAX_ARRAY_SIZE).__enter__()
        except Unavailable as e:
            print(f"slurm.cluster: SKIPPED: {e}", file=sys.stderr)
            return SKIP
        print(f"slurm.cluster: a one-node cluster ({CLUSTER.node}, {CLUSTER.cpus} CPUs, {GPUS} GPUs as gres) up in "
              f"{time.monotonic() - started:.1f} s", file=sys.stderr)
        result = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False).result
        return 0 if result.wasSuccessful() else 1
    finally:
        if CLUSTER is not None:
            CLUSTER.__exit__(None, None, None)
        shutil.rmtree(root, ignore_errors=True)
        print(f"slurm.cluster: {time.monotonic() - started:.1f} s in all", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
