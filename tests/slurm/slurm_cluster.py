"""A single-node Slurm cluster of its own, for a test: munged, slurmctld and slurmd from Debian's
packages (munge, slurmctld, slurmd, slurm-client), started in the foreground as children of the
test with every file under one temporary folder (config, key, sockets, state, spool, logs), on
ports of their own, and stopped at the end whatever happened.

    with SlurmCluster(tmp) as cluster:       # raises Unavailable when it cannot run here
        out = cluster.run("sbatch", "--parsable", script)

Nothing is read from or written to /etc/slurm, /etc/munge, /run or /var: a real cluster on the
same machine (or another test's cluster) is never touched. The client tools find this cluster
through SLURM_CONF (cluster.env())."""
import ctypes
import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import time

PACKAGES = {"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd", "sbatch": "slurm-client",
            "squeue": "slurm-client", "scontrol": "slurm-client", "scancel": "slurm-client", "sinfo": "slurm-client"}
# Generous: the test runs beside others on two shared cores (ctest -j6).
START_TIMEOUT_S = 60
KILL_WAIT_S = 8
# Cancelled jobs end within KillWait at worst.
STOP_TIMEOUT_S = 30


class Unavailable(Exception):
    """Slurm cannot run here: a package is missing, or a daemon does not start in this environment
    (no privileges for it, a container without what it needs). The test is then skipped."""


def die_with_parent():
    """In a daemon before it runs: SIGTERM when the test's process dies, also of a SIGKILL (ctest's
    timeout), so that no daemon outlives the test (prctl PR_SET_PDEATHSIG; Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def missing_programs():
    return sorted({pkg for prog, pkg in PACKAGES.items()
                   if shutil.which(prog) is None and not os.path.exists(os.path.join("/usr/sbin", prog))})


def program(name):
    return shutil.which(name) or os.path.join("/usr/sbin", name)


def free_ports(count):
    """Ports free now on the loopback (the kernel's choice), none of Slurm's defaults (6817-6819)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def node_line():
    """This machine as slurmd sees it (`slurmd -C`): NodeName=... CPUs=... Boards=... with the real
    CPUs, less RealMemory (a node whose memory measures a little lower at registration would be
    drained)."""
    r = subprocess.run([program("slurmd"), "-C"], capture_output=True, text=True, timeout=30)
    line = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else ""
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    if "NodeName" not in fields or "CPUs" not in fields:
        raise Unavailable(f"`slurmd -C` does not describe this machine: {r.stdout.strip()} {r.stderr.strip()}")
    keep = ["CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore"]
    return fields["NodeName"], " ".join(f"{k}={fields[k]}" for k in keep if k in fields), int(fields["CPUs"])


class SlurmCluster:
    def __init__(self, root, gpus=0, max_array_size=1001):
        """A cluster whose files are all under `root` (made if missing). `gpus`: GPUs the node
        declares as a generic resource (gres.conf), files under root standing for /dev/nvidiaN, so
        that --gpus-per-task is granted and Slurm sets CUDA_VISIBLE_DEVICES. `max_array_size`:
        slurm.conf's MaxArraySize (array indices below it)."""
        self.root = os.path.abspath(root)
        self.gpus = gpus
        self.max_array_size = max_array_size
        self.procs = {}
        self.conf = os.path.join(self.root, "etc", "slurm.conf")
        self.logs = os.path.join(self.root, "log")
        self.munge_socket = os.path.join(self.root, "munge", "munge.socket")
        self.node = None
        self.cpus = 0

    # -- the environment of the client tools and of what is submitted --------------------------
    def env(self, base=None, **extra):
        """`base` (os.environ by default) without any SLURM_ variable of a job this test may itself run
        in (CI inside a Slurm allocation), with SLURM_CONF naming this cluster."""
        env = {k: v for k, v in (base if base is not None else os.environ).items() if not k.startswith("SLURM_")}
        env["SLURM_CONF"] = self.conf
        env.update(extra)
        return env

    def run(self, *args, env=None, timeout=60, check=True, cwd=None):
        r = subprocess.run([program(args[0]), *args[1:]], env=self.env(env), capture_output=True, text=True,
                           timeout=timeout, cwd=cwd)
        if check and r.returncode != 0:
            raise AssertionError(f"`{' '.join(args)}` exited {r.returncode}: {r.stderr.strip() or r.stdout.strip()}\n"
                                 f"{self.log_tails()}")
        return r

    # -- start and stop ---------------------------------------------------------------------
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        missing = missing_programs()
        if missing:
            raise Unavailable(f"no Slurm here: install {', '.join(missing)} (scripts/install-deps.sh --tests)")
        for d in ("etc", "log", "munge", "state", "spool", "dev"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        os.chmod(self.root, 0o755)  # the jobs' user reads the config through it
        self.node, node_fields, self.cpus = node_line()
        self.start_munge()
        self.write_config(node_fields)
        self.start_daemon("slurmctld", [program("slurmctld"), "-D", "-f", self.conf])
        self.wait_for(self.controller_answers, "slurmctld to answer (scontrol ping)")
        self.start_daemon("slurmd", [program("slurmd"), "-D", "-f", self.conf, "-N", self.node])
        self.wait_for(self.node_idle, f"node {self.node} to be idle (sinfo)")

    def start_munge(self):
        key = os.path.join(self.root, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        os.chmod(os.path.dirname(key), 0o755)  # munged's socket directory: not writable by others
        # --force: munged refuses root without it (and a few checks of a shared machine's folders).
        self.start_daemon("munged", [program("munged"), "--foreground", "--force", f"--key-file={key}",
                                     f"--socket={self.munge_socket}", f"--pid-file={self.munge_socket}.pid",
                                     f"--seed-file={os.path.join(self.root, 'munge', 'seed')}",
                                     f"--log-file={os.path.join(self.logs, 'munged.log')}", "--num-threads=2"])
        self.wait_for(lambda: os.path.exists(self.munge_socket), "munged's socket")

    def write_config(self, node_fields):
        user = getpass.getuser()
        ctld_port, slurmd_port = free_ports(2)
        r = self.root
        gres = ""
        if self.gpus:
            gres = f" Gres=gpu:{self.gpus}"
            devices = [os.path.join(r, "dev", f"nvidia{i}") for i in range(self.gpus)]
            # Slurm wants character devices and takes each GPU's number from the file's name:
            # links to /dev/null named nvidiaN do (no device node to make, no root needed).
            for d in devices:
                if not os.path.lexists(d):
                    os.symlink("/dev/null", d)
            with open(os.path.join(r, "etc", "gres.conf"), "w") as f:
                f.write(f"NodeName={self.node} Name=gpu File={r}/dev/nvidia[0-{self.gpus - 1}]\n")
        lines = [
            "# A one-node test cluster (tests/slurm/slurm_cluster.py): every file under this folder.",
            "ClusterName=gpuwatch-test",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            f"SlurmUser={user}",
            f"SlurmdUser={user}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={r}/state",
            f"SlurmdSpoolDir={r}/spool",
            f"SlurmctldPidFile={r}/slurmctld.pid",
            f"SlurmdPidFile={r}/slurmd.pid",
            f"SlurmctldLogFile={self.logs}/slurmctld.log",
            f"SlurmdLogFile={self.logs}/slurmd.log",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/backfill",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            "MinJobAge=600",  # finished jobs stay in squeue --states=all / scontrol for the test
            # SIGKILL this long after the SIGTERM of scancel or a time limit (30 s by default): short,
            # so that a test sees it, and long enough for a cell stopped by SIGTERM to end on a busy
            # machine.
            f"KillWait={KILL_WAIT_S}",
            f"MaxArraySize={self.max_array_size}",
            *(["GresTypes=gpu"] if self.gpus else []),
            f"NodeName={self.node} NodeAddr=127.0.0.1 {node_fields}{gres} State=UNKNOWN",
            f"PartitionName=test Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start_daemon(self, name, argv):
        out = open(os.path.join(self.logs, f"{name}.out"), "w")
        self.procs[name] = subprocess.Popen(argv, env=self.env(), stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            preexec_fn=die_with_parent)
        out.close()

    def wait_for(self, predicate, what, timeout=START_TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise Unavailable(f"{name} exited ({p.returncode}) while waiting for {what}\n{self.log_tails()}")
            if predicate():
                return
            time.sleep(0.2)
        raise Unavailable(f"timed out after {timeout} s waiting for {what}\n{self.log_tails()}")

    def controller_answers(self):
        return self.run("scontrol", "ping", check=False, timeout=30).returncode == 0

    def node_idle(self):
        r = self.run("sinfo", "--noheader", "--Node", "--format=%T", check=False, timeout=30)
        return r.returncode == 0 and r.stdout.strip().rstrip("*") == "idle"

    def stop(self):
        """Jobs left (a test that failed half-way) cancelled and waited for (slurmstepd outlives
        slurmd); then every daemon: SIGTERM, SIGKILL to its whole group after 10 s."""
        if all(self.procs.get(d) is not None and self.procs[d].poll() is None for d in ("slurmctld", "slurmd")):
            self.run("scancel", "--quiet", f"--user={getpass.getuser()}", check=False, timeout=30)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while time.monotonic() < deadline and self.run("squeue", "--noheader", check=False, timeout=30).stdout.strip():
                time.sleep(0.2)
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.procs.get(name)
            if p is None or p.poll() is not None:
                continue
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=30)

    def log_tails(self, lines=15):
        out = []
        for name in ("munged.out", "munged.log", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"):
            path = os.path.join(self.logs, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    tail = f.read().splitlines()[-lines:]
                if tail:
                    out.append(f"--- {path} (last {len(tail)} lines):\n" + "\n".join(tail))
        return "\n".join(out)

    # -- jobs ---------------------------------------------------------------------------------
    def job_states(self, job):
        """{"<array job>_<task>": state} of `job`'s tasks (squeue, finished ones included)."""
        r = self.run("squeue", "--noheader", "--array", "--states=all", f"--jobs={job}", "--format=%i %T",
                     check=False, timeout=30)
        return dict(line.split() for line in r.stdout.splitlines() if line.strip())

    def job_info(self, job_id):
        """`scontrol show job ID` as {key: value} (JobState, ExitCode, WorkDir, StdOut, ...)."""
        r = self.run("scontrol", "--oneliner", "show", "job", str(job_id), timeout=30)
        return dict(re.findall(r"(\w+)=(\S*)", r.stdout))
