"""Issue 12 part 3: one job recorded on several nodes, each into its own store, reported as one."""
import json
import os

from harness import GpuwatchTestCase

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
    def record(self, store, host, env, *extra, command=("sleep", "0.3")):
        r = self.run_gw("record", "--store", store, "--host", host, "--name", "train", "--no-summary",
                        "--interval", "0.05", *extra, "--", *command, **dict(NO_JOB, **env))
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
        self.assertEqual([x["job"]["id"] for x in json.loads(r.stdout)], ["bert-42"])
        text = self.run_gw("runs").stdout
        self.assertIn("job", text.splitlines()[0])
        self.assertIn("bert-42", text)

    def test_bad_job_flag_is_a_usage_error(self):
        r = self.run_gw("record", "--job", "", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("job id", r.stderr)
        self.assertFalse(os.path.exists(self.store))
