"""Issue 12 part 3: one job recorded on several nodes, each into its own store, reported as one."""
import contextlib
import json
import os
import re
import select
import signal
import sqlite3
import urllib.error
import urllib.request

from harness import QUICK, GpuwatchTestCase

# The machine running the tests may itself be a Slurm job: its variables are cleared (empty counts
# as unset) unless a test sets them.
NO_JOB = {name: "" for name in ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_PROCID",
                                "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NODEID", "SLURM_JOB_NUM_NODES",
                                "SLURM_NNODES", "TORCHELASTIC_RUN_ID", "RANK", "LOCAL_RANK", "WORLD_SIZE",
                                "GROUP_RANK", "NODE_RANK")}
SLURM_NODE_A = {"SLURM_JOB_ID": "77", "SLURM_PROCID": "0", "SLURM_NODEID": "0", "SLURM_JOB_NUM_NODES": "2",
                "SLURM_NTASKS": "2", "SLURM_LOCALID": "0"}
SLURM_NODE_B = dict(SLURM_NODE_A, SLURM_PROCID="1", SLURM_NODEID="1")


class ManyMachines(GpuwatchTestCase):
    def record(self, store, host, env, *extra, command=("sleep", "0.3"), scenario=QUICK):
        r = self.run_gw("record", "--store", store, "--host", host, "--name", "train", "--no-summary",
                        "--interval", "0.05", *extra, "--", *command, scenario=scenario, **dict(NO_JOB, **env))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_record_notes_the_slurm_job_and_ranks(self):
        self.record(self.store, "node-a", SLURM_NODE_A)
        job = self.report()["run"]["job"]
        self.assertEqual(job, {"id": "77", "source": "slurm", "rank": 0, "local_rank": 0, "world_size": 2,
                               "node_rank": 0, "node_count": 2})
        self.assertEqual(self.report()["run"]["host"], "node-a")
        text = self.run_gw("report", "last").stdout
        self.assertIn("Job       77 (slurm): rank 0 of 2, local rank 0, node 0 of 2", text)

    def test_job_flag_overrides_and_runs_filters_by_job(self):
        self.record(self.store, "node-a", SLURM_NODE_A, "--job", "bert-42")
        self.record(self.store, "node-a", {})
        runs = self.runs()
        self.assertEqual([r["job"] and r["job"]["id"] for r in runs], ["bert-42", None])
        self.assertEqual(runs[0]["job"]["source"], "flag")
        self.assertEqual(runs[0]["job"]["rank"], 0)  # ranks still from the environment
        r = self.run_gw("runs", "--job", "bert-42", "--format", "json")
        self.assertEqual([x["job"]["id"] for x in json.loads(r.stdout)["runs"]], ["bert-42"])
        text = self.run_gw("runs").stdout
        self.assertIn("job", text.splitlines()[0])
        self.assertIn("bert-42", text)

    def test_bad_job_flag_is_a_usage_error(self):
        r = self.run_gw("record", "--job", "", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("job id", r.stderr)
        self.assertFalse(os.path.exists(self.store))


class SeveralStores(GpuwatchTestCase):
    def setUp(self):
        super().setUp()
        self.nodes = os.path.join(self.tmp, "nodes")
        os.mkdir(self.nodes)
        self.a = os.path.join(self.nodes, "node-a.db")
        self.b = os.path.join(self.nodes, "node-b.db")
        ManyMachines.record(self, self.a, "node-a", SLURM_NODE_A)
        ManyMachines.record(self, self.b, "node-b", SLURM_NODE_B)
        self.id_a = self.report(store=self.a)["run"]["id"]
        self.id_b = self.report(store=self.b)["run"]["id"]

    def report(self, run="last", store=None, stores=()):
        args = [x for s in ([store] if store else list(stores)) for x in ("--store", s)]
        r = self.run_gw("report", run, "--format", "json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_a_run_is_found_across_stores_and_last_is_the_latest(self):
        both = (self.a, self.b)
        self.assertEqual(self.report("last", stores=both)["run"]["id"], self.id_b)
        self.assertEqual(self.report("last", stores=(self.b, self.a))["run"]["id"], self.id_b)
        self.assertEqual(self.report(self.id_a, stores=both)["run"]["host"], "node-a")
        self.assertEqual(self.report(self.id_a[:6], stores=(self.nodes,))["run"]["id"], self.id_a)  # a folder

    def test_a_name_in_two_stores_is_ambiguous(self):
        r = self.run_gw("report", "train", "--store", self.a, "--store", self.b)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("run name 'train' is in 2 stores", r.stderr)
        self.assertIn(f"{self.id_a} (train) on node-a in {self.a}", r.stderr)
        self.assertIn(f"{self.id_b} (train) on node-b in {self.b}", r.stderr)

    def test_compare_and_status_read_several_stores(self):
        r = self.run_gw("compare", self.id_a, self.id_b, "--store", self.nodes, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x["id"] for x in json.loads(r.stdout)["runs"]], [self.id_a, self.id_b])
        r = self.run_gw("status", self.id_a, "--store", self.a, "--store", self.b, "--format", "json",
                        "--no-remember")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["run"]["id"], self.id_a)

    def test_runs_lists_every_store_oldest_first(self):
        r = self.run_gw("runs", "--store", self.nodes, "--job", "77", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([(x["id"], x["host"]) for x in json.loads(r.stdout)["runs"]],
                         [(self.id_a, "node-a"), (self.id_b, "node-b")])
        text = self.run_gw("runs", "--store", self.b, "--store", self.a).stdout.splitlines()
        self.assertEqual(text[0].split()[:8], ["id", "started", "duration", "status", "outcome", "host", "job", "rank"])
        self.assertTrue(text[1].startswith(self.id_a) and "node-a" in text[1], text)

    def test_no_store_is_written(self):
        # A run without rollups gets them from a report of its store alone; of several stores, none.
        def rollup_runs():
            with contextlib.closing(sqlite3.connect(self.a)) as db:
                return db.execute("SELECT count(*) FROM rollup_runs").fetchone()[0]
        with contextlib.closing(sqlite3.connect(self.a)) as db, db:
            db.execute("DELETE FROM rollup_runs")
        self.report(self.id_a, stores=(self.a, self.b))
        self.assertEqual(rollup_runs(), 0)
        self.report(self.id_a, store=self.a)
        self.assertEqual(rollup_runs(), 1)

    def test_bad_stores_are_clear_errors(self):
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        for args, message in (
                (("--store", self.a, "--store", os.path.join(self.tmp, "missing.db")), "no such file or folder"),
                (("--store", empty), "holds no run store (no *.db file)"),
                (("--store", self.a, "--store", empty), "holds no run store")):
            r = self.run_gw("report", "last", *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr)


class JobReport(GpuwatchTestCase):
    """report --job: node-b's GPUs are 30 % busy, node-a's 90 %: CV 50 %, poor; node-b is named."""

    def setUp(self):
        super().setUp()
        self.a = os.path.join(self.tmp, "node-a.db")
        self.b = os.path.join(self.tmp, "node-b.db")
        ManyMachines.record(self, self.a, "node-a", SLURM_NODE_A, scenario=QUICK + ";gpu*.util=90")
        ManyMachines.record(self, self.b, "node-b", SLURM_NODE_B, scenario=QUICK + ";gpu*.util=30")
        ManyMachines.record(self, self.b, "node-b", {"SLURM_JOB_ID": "78"})  # another job: left out

    def test_the_job_across_two_stores(self):
        r = self.run_gw("report", "--job", "77", "--store", self.a, "--store", self.b, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        job = json.loads(r.stdout)
        self.assertEqual(job["schema_version"], 2)
        self.assertEqual(job["kind"], "job")
        self.assertEqual(job["job_id"], "77")
        self.assertEqual([(x["host"], x["job"]["rank"]) for x in job["runs"]], [("node-a", 0), ("node-b", 1)])
        self.assertEqual([len(x["gpus"]) for x in job["runs"]], [2, 2])
        self.assertEqual(job["gpus"], 4)
        self.assertEqual([n["host"] for n in job["nodes"]], ["node-a", "node-b"])
        self.assertAlmostEqual(job["nodes"][0]["gpu_util_percent_mean"], 90, delta=0.5)
        self.assertAlmostEqual(job["nodes"][1]["gpu_util_percent_mean"], 30, delta=0.5)
        self.assertAlmostEqual(job["load_balance"]["cv_percent"], 50, delta=1)
        self.assertEqual(job["load_balance"]["band"], "poor")
        self.assertEqual(job["straggler"]["host"], "node-b")
        self.assertEqual(job["straggler"]["rule"], "utilization")
        for run in job["runs"]:
            self.assertGreater(run["energy_joules"], 0)
            self.assertGreater(run["duration_s"], 0.2)
        text = self.run_gw("report", "--job", "77", "--store", self.a, "--store", self.b)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("Job 77: 2 runs on 2 nodes, 4 GPUs", text.stdout)
        self.assertIn("CV of the nodes' mean GPU utilization 50.0 % (poor", text.stdout)
        self.assertIn("Straggler: node-b. Rule: utilization", text.stdout)
        md = self.run_gw("report", "--job", "77", "--store", self.tmp, "--format", "markdown")  # the folder
        self.assertEqual(md.returncode, 0, md.stderr)
        self.assertIn("## Job 77", md.stdout)
        self.assertIn("| node-b |", md.stdout)

    def test_bad_job_requests_are_clear_errors(self):
        r = self.run_gw("report", "--job", "99", "--store", self.a, "--store", self.b)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"no run of job '99' in the 2 stores ({self.a}, {self.b})", r.stderr)
        r = self.run_gw("report", "last", "--job", "77", "--store", self.a)
        self.assertEqual(r.returncode, 2)
        self.assertIn("give one of RUN, --group and --job", r.stderr)


class ServeSeveralStores(GpuwatchTestCase):
    def test_serve_lists_and_answers_runs_of_every_store(self):
        nodes = os.path.join(self.tmp, "nodes")
        os.mkdir(nodes)
        a, b = os.path.join(nodes, "node-a.db"), os.path.join(nodes, "node-b.db")
        ManyMachines.record(self, a, "node-a", SLURM_NODE_A)
        ManyMachines.record(self, b, "node-b", SLURM_NODE_B)
        p = self.start_gw("serve", "--listen", "127.0.0.1:0", "--store", nodes)
        try:
            ready, _, _ = select.select([p.stdout], [], [], 10)
            self.assertTrue(ready, "no URL printed within 10 s")
            base = re.search(r"(http://127\.0\.0\.1:\d+)/", p.stdout.readline()).group(1)

            def get(path):
                try:
                    with urllib.request.urlopen(base + path, timeout=30) as r:
                        return r.status, json.loads(r.read().decode())
                except urllib.error.HTTPError as e:
                    return e.code, json.loads(e.read().decode())

            status, listing = get("/api/runs")
            self.assertEqual(status, 200)
            runs = listing["runs"]
            self.assertEqual([r["host"] for r in runs], ["node-b", "node-a"])  # newest first
            self.assertEqual([r["job"]["rank"] for r in runs], [1, 0])
            for run in runs:
                status, one = get(f"/api/runs/{run['id']}")
                self.assertEqual(status, 200, one)
                self.assertEqual(one["run"]["host"], run["host"])
                self.assertEqual(one["run"]["job"]["id"], "77")
                status, report = get(f"/api/runs/{run['id']}/report")
                self.assertEqual((status, report["run"]["id"]), (200, run["id"]))
            status, compared = get(f"/api/compare?runs={runs[0]['id']},{runs[1]['id']}")
            self.assertEqual(status, 200, compared)
            status, error = get("/api/runs/train")  # in both stores
            self.assertEqual(status, 404)
            self.assertIn("is in 2 stores", error["error"])
        finally:
            os.killpg(p.pid, signal.SIGTERM)
            p.communicate(timeout=30)

    def test_serve_refuses_a_folder_without_stores(self):
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        r = self.run_gw("serve", "--listen", "127.0.0.1:0", "--store", empty, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("holds no run store", r.stderr)
