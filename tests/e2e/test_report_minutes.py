"""`report` of a long run judged from its detector minutes (issue 25) against the same report
from its samples: the store's own path (the finish builds the minutes, the codec, the reads of
flagged windows), on a run made by bench/make_run_store long enough to take it."""
import json
import os
import sqlite3
import subprocess
import unittest

from harness import BIN, GpuwatchTestCase

MAKE_RUN_STORE = os.path.join(os.path.dirname(os.path.abspath(BIN)), "make_run_store")

# Relative tolerances where the minutes differ from the samples by design
# (src/analysis/detector_rollups.h); every other number within RELATIVE.
RELATIVE = 1e-6
TOLERANCES = {
    "typical_period_s": 2.5e-3,  # the bucket's representative (kRollupRelativeError)
    "period_cv": 1e-3,           # its sums in another order, over near-identical periods
    "growth_bytes": 1e-3,        # a difference of two means of 61 GB: their last digits
    "growth_percent_of_total": 1e-3,
    "slope_bytes_per_hour": 1e-4,  # the edge minutes' samples weighed within their window
}


@unittest.skipUnless(os.access(MAKE_RUN_STORE, os.X_OK), "make_run_store is not built")
class ReportFromDetectorMinutes(GpuwatchTestCase):
    def report_of(self, store):
        r = self.run_gw("report", "--store", store, "long", "--format", "json", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def assert_close(self, rolled, raw, path):
        if isinstance(raw, dict):
            self.assertEqual(sorted(rolled), sorted(raw), path)
            for key in raw:
                self.assert_close(rolled[key], raw[key], f"{path}/{key}")
        elif isinstance(raw, list):
            self.assertEqual(len(rolled), len(raw), path)
            for i, (a, b) in enumerate(zip(rolled, raw)):
                self.assert_close(a, b, f"{path}[{i}]")
        elif isinstance(raw, float) and not isinstance(raw, bool):
            tolerance = TOLERANCES.get(path.rsplit("/", 1)[-1], RELATIVE)
            self.assertAlmostEqual(rolled, raw, delta=tolerance * max(1.0, abs(raw)), msg=path)
        else:
            self.assertEqual(rolled, raw, path)

    def test_detectors_from_minutes_equal_those_from_the_samples(self):
        store = os.path.join(self.tmp, "long.db")
        # One GPU, 3 h at 10 Hz: 108,000 samples, above the 100,000 that take the minutes.
        made = subprocess.run([MAKE_RUN_STORE, "--out", store, "--gpus", "1", "--hours", "3", "--name", "long"],
                              capture_output=True, text=True, timeout=600)
        self.assertEqual(made.returncode, 0, made.stderr)
        rolled = self.report_of(store)
        # The same run as an older gpuwatch left it: rollups without the detector minutes.
        with sqlite3.connect(store) as db:
            removed = db.execute("DELETE FROM rollups WHERE metric = 'detector_minutes'").rowcount
        self.assertEqual(removed, 1)
        raw = self.report_of(store)
        self.assertIn("schema_version", rolled)
        device = raw["devices"][0]
        self.assertGreater(device["idle_gaps"]["count"], 3000)
        self.assertIn("memory_trend", device)
        self.assertIn("pcie_link", device)
        self.assert_close(rolled, raw, "")
        # Judged from the minutes indeed: only they give the period as its bucket's representative.
        self.assertNotEqual(rolled["devices"][0]["idle_gaps"]["typical_period_s"], device["idle_gaps"]["typical_period_s"])


if __name__ == "__main__":
    unittest.main()
