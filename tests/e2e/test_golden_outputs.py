"""The whole output of `devices --json` and `sample --format jsonl` on every fixture host, compared
with the files under expected/<host>/.

After a deliberate change to the output (a new metric, a fixed value), regenerate the files and
read their diff before committing it:

    GPUWATCH_REGENERATE_EXPECTED=1 ctest --test-dir build -R e2e.test_golden_outputs

With the variable set to 1 the test writes the expected files instead of comparing, and passes.
"""
import difflib
import json
import os

from harness import FAKE_NVML, FIXTURES, QUICK, GpuwatchTestCase, tree

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected")
REGENERATE = os.environ.get("GPUWATCH_REGENERATE_EXPECTED") == "1"
NO_NVML = "/nonexistent/libnvidia-ml.so.1"
PLACEHOLDER = "<varies>"

# Values that differ between two runs of the same binary on the same tree: when the run happened
# (timestamp, wall_ns), how long after its start a row was taken (elapsed_s) and how old the
# slow read it carries was then (slow_read_age_seconds). Everything else is exact.
#
# Rates from two reads are not among them because the fixtures make them deterministic, not
# because they are normalised: the sysfs and fdinfo counters never move, so Intel power from
# energy deltas reads 0 W on the second row whatever the time between the reads; the fdinfo
# engine utilization needs two scans, which ride on the slow reads a second apart, so a 0.05 s
# run never has one. The unit tests advance those counters at known rates.
VOLATILE_KEYS = frozenset({"timestamp", "wall_ns", "elapsed_s", "slow_read_age_seconds"})

# host: (sysfs tree or None, procfs fixture, NVML library, keys volatile on that host only).
# Every host has a procfs fixture so that the host row never reads the machine's own
# /proc/meminfo; procfs/* are unpacked trees (harness.tree), proc a plain directory.
HOSTS = {
    "w7900": ("w7900", "procfs/drm_amdgpu", NO_NVML, ()),
    "mi300x": ("mi300x", "procfs/kfd_mi300x", NO_NVML, ()),
    "bmc": ("bmc", "proc", NO_NVML, ()),
    "arc_b50_xe": ("arc_b50_xe", "procfs/drm_intel", NO_NVML, ()),
    "i915_igpu": ("i915_igpu", "procfs/drm_intel", NO_NVML, ()),
    # The fake driver's energy counter is the integral of its power since it was loaded, so it
    # depends on when it was read; its power and PCIe rates are constants.
    "fake_nvml": (None, "proc", None, ("energy_joules",)),
}


def normalise(value, extra_keys=()):
    """`value` (parsed JSON) with the values of VOLATILE_KEYS and `extra_keys` replaced by a
    placeholder, at any depth; the keys themselves stay, so a key that appears or vanishes is
    still a difference."""
    if isinstance(value, dict):
        return {k: PLACEHOLDER if (k in VOLATILE_KEYS or k in extra_keys) else normalise(v, extra_keys)
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, extra_keys) for v in value]
    return value


def pretty(value):
    return json.dumps(value, indent=2) + "\n"


def pretty_docs(text):
    """Every JSON document of `text` (one, or one a line), pretty-printed."""
    try:
        return pretty(json.loads(text))
    except json.JSONDecodeError:
        return "".join(pretty(json.loads(line)) for line in text.splitlines())


class GoldenOutputs(GpuwatchTestCase):
    def gw(self, host, *args):
        sysfs, procfs, library, _ = HOSTS[host]
        sysfs = tree(f"sysfs/{sysfs}") if sysfs else os.path.join(FIXTURES, "sysfs", "none")
        procfs = tree(procfs) if procfs.startswith("procfs/") else os.path.join(FIXTURES, procfs)
        r = self.run_gw(*args, scenario=QUICK, library=library if library else FAKE_NVML,
                        GPUWATCH_SYSFS_ROOT=sysfs, GPUWATCH_PROCFS_ROOT=procfs)
        self.assertEqual(r.returncode, 0, f"{host}: gpuwatch {' '.join(args)}: {r.stderr}")
        return r.stdout

    def check(self, host, name, text):
        """Compares `text` with the expected file, or writes it there when regenerating. Both are
        parsed and pretty-printed for the diff: a jsonl row is one long line, and a diff of two
        such lines would not show which key changed."""
        path = os.path.join(EXPECTED, host, name)
        if REGENERATE:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            return
        with open(path) as f:
            expected = f.read()
        want, got = pretty_docs(expected), pretty_docs(text)
        if want != got:
            diff = difflib.unified_diff(want.splitlines(keepends=True), got.splitlines(keepends=True),
                                        f"expected/{host}/{name}", f"gpuwatch on {host}")
            self.fail(f"{host}: {name} differs from the expected file (GPUWATCH_REGENERATE_EXPECTED=1 "
                      f"rewrites it):\n{''.join(diff)}")

    def test_devices_json(self):
        for host, (_, _, _, extra) in HOSTS.items():
            with self.subTest(host=host):
                out = json.loads(self.gw(host, "devices", "--json"))
                self.check(host, "devices.json", pretty(normalise(out, extra)))

    def test_sample_jsonl(self):
        for host, (_, _, _, extra) in HOSTS.items():
            with self.subTest(host=host):
                out = self.gw(host, "sample", "--count", "2", "--interval", "0.05", "--format", "jsonl")
                rows = [normalise(json.loads(line), extra) for line in out.splitlines()]
                self.check(host, "sample.jsonl", "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
