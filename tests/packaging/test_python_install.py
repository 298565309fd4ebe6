"""docs/python.md's offline install of the Python client on a system Python
that refuses `pip install` (Debian 12's PEP 668 marker): runs the block the
doc marks as tested, in a scratch folder, with no index and no pip config,
then imports the package from the venv and sends one annotation through it.

The system Python is GPUWATCH_SYSTEM_PYTHON, else /usr/bin/python3 (the
distribution's, not a pyenv or conda one on PATH)."""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "python.md")
MARKER = "<!-- tested by tests/packaging/test_python_install.py"


def tested_block():
    """The commands of the fenced block after the doc's marker."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    start = text.index(MARKER)
    match = re.compile(r"```[^\n]*\n(.*?)```", re.S).search(text, start)
    return [line for line in match.group(1).splitlines() if line.strip()]


def system_python():
    return os.environ.get("GPUWATCH_SYSTEM_PYTHON") or "/usr/bin/python3"


def offline_env(python):
    """The environment with python's folder first on PATH and pip cut off
    from every index and local configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=os.path.dirname(python) + os.pathsep + env.get("PATH", ""), PIP_CONFIG_FILE=os.devnull,
               PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


class PythonInstallTest(unittest.TestCase):
    def setUp(self):
        self.python = system_python()
        if not os.path.exists(self.python):
            self.skipTest(f"no system Python at {self.python}")
        self.work = tempfile.mkdtemp(prefix="gw-install")
        self.addCleanup(shutil.rmtree, self.work, True)
        shutil.copytree(os.path.join(ROOT, "python"), os.path.join(self.work, "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        self.env = offline_env(self.python)

    def run_in_work(self, command, **kwargs):
        return subprocess.run(command, cwd=self.work, env=self.env, capture_output=True, text=True,
                              timeout=300, **kwargs)

    def test_the_documented_venv_install_works_offline(self):
        commands = tested_block()
        self.assertTrue(commands[0].startswith("python3 -m venv"), commands)
        for command in commands:
            result = self.run_in_work(["bash", "-euc", command])
            self.assertEqual(result.returncode, 0,
                             f"`{command}` failed (Debian needs python3-venv python3-setuptools python3-wheel; "
                             f"scripts/install-deps.sh):\n{result.stdout}{result.stderr}")

        venv_python = os.path.join(self.work, ".venv", "bin", "python")
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(receiver.close)
        receiver.bind(os.path.join(self.work, "annotations.sock"))
        receiver.settimeout(30)
        script = "import gpuwatch\nprint(gpuwatch.__file__)\ngpuwatch.log(loss=1.5)\n"
        # From / so that nothing but the venv can provide the package.
        result = subprocess.run([venv_python, "-c", script], cwd="/", capture_output=True, text=True, timeout=60,
                                env=dict(self.env, GPUWATCH_SOCKET=os.path.join(self.work, "annotations.sock")))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip().startswith(os.path.join(self.work, ".venv", "lib")), result.stdout)
        message = json.loads(receiver.recv(65536).decode("utf-8"))
        self.assertEqual((message["kind"], message["value"]), ("log", {"loss": 1.5}))

    def test_the_system_python_refuses_as_the_doc_says(self):
        # Only where the distribution marks its Python; --dry-run installs nothing either way.
        stdlib = subprocess.run([self.python, "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
                                capture_output=True, text=True, check=True).stdout.strip()
        if not os.path.exists(os.path.join(stdlib, "EXTERNALLY-MANAGED")):
            self.skipTest(f"{self.python} is not marked externally managed")
        result = self.run_in_work([self.python, "-m", "pip", "install", "--dry-run", "--no-build-isolation",
                                   "./python"])
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("externally-managed-environment", result.stdout + result.stderr)

    def test_the_plain_pythonpath_way_needs_no_install(self):
        # docs/python.md: the folder on PYTHONPATH, no venv, no pip, no network.
        env = dict(self.env, PYTHONPATH=os.path.join(self.work, "python"))
        result = subprocess.run([self.python, "-c", "import gpuwatch; print(gpuwatch.__file__)"], cwd="/", env=env,
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith(os.path.join(self.work, "python", "gpuwatch")), result.stdout)
        with open(DOC, encoding="utf-8") as f:
            self.assertIn("PYTHONPATH=/path/to/gpuwatch/python gpuwatch record -- python train.py", f.read())

    def test_what_the_install_leaves_in_the_checkout_is_ignored(self):
        # `pip install ./python` builds in the source folder (issue 22 item 17).
        if shutil.which("git") is None or not os.path.exists(os.path.join(ROOT, ".git")):
            self.skipTest("not a git checkout")
        for path in ("python/build/lib/gpuwatch/__init__.py", "python/gpuwatch.egg-info/PKG-INFO"):
            result = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT)
            self.assertEqual(result.returncode, 0, f"{path} is not ignored by .gitignore")


if __name__ == "__main__":
    unittest.main()
