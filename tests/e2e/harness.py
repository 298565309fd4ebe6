"""Runs the real gpuwatch binary against the fake NVML driver in a scratch store."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

BIN = os.environ.get("GPUWATCH_BIN", "gpuwatch")
FAKE_NVML = os.environ.get("FAKE_NVML", "")
FAKE_NVML_OLD = os.environ.get("FAKE_NVML_OLD", "")
FIXTURES = os.environ.get("GPUWATCH_FIXTURES", "")
# The trees kept in git as archives (tests/fixtures/{sysfs,procfs}/<name>.ttar), as the build
# unpacks them: <build>/tests/fixtures.
TREES = os.environ.get("GPUWATCH_FIXTURE_TREES", "")

# Fast by default: the real driver's slow calls are tested in the unit tests.
QUICK = "pcie_delay_ms=0;energy_delay_ms=0"


def tree(name):
    """The unpacked fixture tree `name` ("sysfs/w7900", "procfs/drm_amdgpu"). A missing one is an
    error here: gpuwatch would read it as a host without GPUs and the test fail far from why."""
    path = os.path.join(TREES, name)
    if not TREES or not os.path.isdir(path):
        raise FileNotFoundError(f"no fixture tree {name} in GPUWATCH_FIXTURE_TREES={TREES!r}: the build "
                                "unpacks them into <build>/tests/fixtures (target fixture_trees)")
    return path


def write_advisor_config(path, text):
    """Writes an advisor config of TEXT at PATH and returns PATH. This machine's CPUs are shared
    with the tests ctest runs beside this one: every config a test uses, the default one included
    (GpuwatchTestCase.setUp), blames the host (util.host_bound) only when it is 100 % busy, so that
    a busy CI machine does not replace the verdict a test set up."""
    with open(path, "w") as f:
        f.write("host_cpu_percent = 100\n" + text)
    return path


class GpuwatchTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpuwatch-e2e-")
        self.store = os.path.join(self.tmp, "runs.db")
        self.procs = []  # started processes (start_gw) a test keeps: killed with their group at its end
        # The default advisor config (XDG_CONFIG_HOME/gpuwatch/advisor.conf) of every command a test
        # runs; outside self.tmp, whose files some tests list.
        self.config_home = tempfile.mkdtemp(prefix="gpuwatch-e2e-config-")
        os.makedirs(os.path.join(self.config_home, "gpuwatch"))
        self.advisor_config("", path=os.path.join(self.config_home, "gpuwatch", "advisor.conf"))

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.communicate(timeout=30)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if hasattr(self, "config_home"):
            shutil.rmtree(self.config_home, ignore_errors=True)

    def env(self, scenario=QUICK, library=None, **extra):
        env = dict(os.environ)
        env["GPUWATCH_STORE"] = self.store
        env["GPUWATCH_NVML_LIBRARY"] = library if library is not None else FAKE_NVML
        env["FAKE_NVML_SET"] = scenario
        env.pop("FAKE_NVML_SCENARIO", None)
        # No sysfs GPU unless a test names a tree: the machine running the tests
        # may have AMD GPUs of its own.
        env["GPUWATCH_SYSFS_ROOT"] = os.path.join(FIXTURES, "sysfs", "none")
        # The PCI id lists that name AMD and Intel GPUs: a few real lines
        # (fixtures/share), not whatever this machine has installed.
        env["GPUWATCH_SHARE_ROOT"] = os.path.join(FIXTURES, "share")
        # record follows these (issue 9): a test sets them when it means to.
        env.pop("CUDA_VISIBLE_DEVICES", None)
        env.pop("CUDA_DEVICE_ORDER", None)
        if hasattr(self, "config_home"):  # a case made outside unittest's setUp (setUpClass) has none
            env["XDG_CONFIG_HOME"] = self.config_home
        env.update(extra)
        return env

    def run_gw(self, *args, scenario=QUICK, library=None, timeout=60, **extra):
        return subprocess.run([BIN, *args], env=self.env(scenario, library, **extra), capture_output=True,
                              text=True, timeout=timeout)

    def start_gw(self, *args, scenario=QUICK, library=None, **extra):
        return subprocess.Popen([BIN, *args], env=self.env(scenario, library, **extra), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)

    def advisor_config(self, text, path=None):
        """write_advisor_config, by default as <tmp>/advisor.conf."""
        return write_advisor_config(path or os.path.join(self.tmp, "advisor.conf"), text)

    def short_advisor_config(self):
        """An advisor config whose window and warm-up are short enough for a test."""
        return self.advisor_config("# short enough for a test\nwindow_s = 2\nwarmup_s = 1\n")

    def report(self, run="last", **kw):
        r = self.run_gw("report", run, "--format", "json", **kw)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def runs(self):
        r = self.run_gw("runs", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["schema_version"], 2)
        return doc["runs"]

    def wait_for(self, predicate, timeout=10.0, what="condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        self.fail(f"timed out waiting for {what}")

    def run_gw_as_other_user(self, *args, **extra):
        """Runs gpuwatch as a user whom file modes bind: as root, `setpriv` to nobody (root may write
        anything); as anyone else, as that user. Skips the test where root cannot drop to nobody.
        Paths the test hands over must be open to that user (self.tmp is made traversable here)."""
        prefix = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                self.skipTest("running as root without setpriv: no unprivileged user to test as")
            prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        os.chmod(self.tmp, 0o755)
        env = self.env(**extra)
        env["HOME"] = self.tmp
        return subprocess.run([*prefix, BIN, *args], env=env, capture_output=True, text=True, timeout=60)
