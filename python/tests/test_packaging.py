import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

import gpuwatch

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wheel_tools_missing():
    """Why this Python cannot build a wheel without the network, or None."""
    for module in ("pip", "setuptools"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    # setuptools makes wheels itself only from 70.1 on; before, it needs `wheel`.
    version = tuple(int(part) for part in re.findall(r"\d+", importlib.metadata.version("setuptools"))[:2])
    if version < (70, 1) and importlib.util.find_spec("wheel") is None:
        return "setuptools < 70.1 needs the wheel package, which is not installed"
    return None


class PackagingTest(unittest.TestCase):
    def test_importing_gpuwatch_imports_no_framework(self):
        script = ("import sys, gpuwatch\n"
                  "print(sorted(m for m in ('torch', 'lightning', 'pytorch_lightning', 'transformers')"
                  " if m in sys.modules))")
        result = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                                capture_output=True, text=True, check=True, timeout=60)
        self.assertEqual(result.stdout.strip(), "[]")

    def test_version_matches_pyproject(self):
        with open(os.path.join(PYTHON_DIR, "pyproject.toml"), encoding="utf-8") as f:
            self.assertIn(f'version = "{gpuwatch.__version__}"', f.read())

    def test_pip_builds_a_wheel(self):
        missing = wheel_tools_missing()
        if missing:
            self.skipTest(missing)
        work = tempfile.mkdtemp(prefix="gw-wheel")
        self.addCleanup(shutil.rmtree, work, True)
        # A copy, so that setuptools' build/ and egg-info land there, not in the tree.
        source = os.path.join(work, "python")
        shutil.copytree(PYTHON_DIR, source, ignore=shutil.ignore_patterns(
            "tests", "build", "*.egg-info", "__pycache__"))
        out = os.path.join(work, "wheels")
        env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", out, source],
            env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        wheels = os.listdir(out)
        self.assertEqual(len(wheels), 1, wheels)
        self.assertTrue(wheels[0].startswith(f"gpuwatch-{gpuwatch.__version__}-py3-none-any"), wheels[0])
        with zipfile.ZipFile(os.path.join(out, wheels[0])) as wheel:
            names = set(wheel.namelist())
        for module in ("__init__", "_client", "_torch", "_frameworks", "lightning", "huggingface"):
            self.assertIn(f"gpuwatch/{module}.py", names)
        self.assertFalse(any(name.startswith("tests/") for name in names), names)


if __name__ == "__main__":
    unittest.main()
