"""NVML device events (XID, ECC) recorded as run events and shown by report and top; MIG instances
listed by devices and top. The fake driver delivers a scripted event due at 0 s on the sampler's
first wait, which every run makes, so no assertion depends on how long anything took."""
import json

from harness import GpuwatchTestCase, QUICK, FAKE_NVML_OLD

XID = QUICK + ";gpu1.events=xid:79@0"
MIG = QUICK + ";gpu_count=2;gpu0.mig_mode=1;gpu0.mig_instances=1g.10gb:9856:7:0,3g.40gb:40192:1:0"


class DeviceEvents(GpuwatchTestCase):
    def test_record_stores_a_scripted_xid_and_report_shows_it(self):
        r = self.run_gw("record", "--interval", "0.05", "--name", "xid", "--", "sleep", "0.5", scenario=XID)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gpuwatch: GPU 1: XID 79: GPU has fallen off the bus", r.stderr)
        events = [e for e in self.report("xid")["events"] if e["kind"] == "xid"]
        self.assertEqual(len(events), 1, events)
        self.assertEqual(events[0]["gpu"], 1)
        self.assertEqual(events[0]["message"], "XID 79: GPU has fallen off the bus")
        text = self.run_gw("report", "xid", scenario=XID)
        self.assertEqual(text.returncode, 0, text.stderr)
        row = [line for line in text.stdout.splitlines() if "XID 79" in line]
        self.assertEqual(len(row), 1, text.stdout)
        self.assertIn("xid", row[0])
        # The other GPU and the run itself went on as usual.
        rep = self.report("xid")
        self.assertEqual(rep["run"]["status"], "finished")
        self.assertGreaterEqual(rep["devices"][0]["samples"], 2)

    def test_ecc_errors_are_stored_with_their_kinds(self):
        scenario = QUICK + ";gpu0.events=ecc_double_bit@0"
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.3", scenario=scenario)
        self.assertEqual(r.returncode, 0, r.stderr)
        events = [e for e in self.report()["events"] if e["kind"].startswith("ecc_")]
        self.assertEqual([(e["kind"], e["gpu"]) for e in events], [("ecc_double_bit", 0)], events)

    def test_old_driver_without_event_functions_records_without_events(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.3", scenario=XID, library=FAKE_NVML_OLD)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual([e for e in rep["events"] if e["kind"] == "xid"], [])
        self.assertGreaterEqual(rep["devices"][1]["samples"], 2)

    def test_a_driver_refusing_every_wait_records_normally(self):
        r = self.run_gw("record", "--interval", "0.05", "--", "sleep", "0.3", scenario=XID + ";event_wait_error=999")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual(rep["run"]["status"], "finished")
        self.assertEqual([e for e in rep["events"] if e["kind"] == "xid"], [])
        self.assertGreaterEqual(rep["devices"][1]["samples"], 2)

    def test_top_once_shows_the_event(self):
        r = self.run_gw("top", "--once", "--format", "json", scenario=XID)
        self.assertEqual(r.returncode, 0, r.stderr)
        events = json.loads(r.stdout)["device_events"]
        self.assertEqual([(e["gpu"], e["kind"], e["message"]) for e in events],
                         [(1, "xid", "XID 79: GPU has fallen off the bus")])
        text = self.run_gw("top", "--once", "--width", "120", scenario=XID)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertRegex(text.stdout, r"\d\d:\d\d:\d\d  GPU 1  XID 79: GPU has fallen off the bus")


class MigInstances(GpuwatchTestCase):
    def test_devices_lists_mig_instances(self):
        r = self.run_gw("devices", scenario=MIG)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("MIG         enabled, 2 instances", r.stdout)
        self.assertIn("NVIDIA H100 80GB HBM3 MIG 1g.10gb  9.6 GiB  GPU instance 7  compute instance 0", r.stdout)
        self.assertIn("MIG         disabled", r.stdout)  # GPU 1
        data = json.loads(self.run_gw("devices", "--json", scenario=MIG).stdout)
        self.assertEqual(data["schema_version"], 2)
        mig = data["devices"][0]["mig"]
        self.assertTrue(mig["enabled"])
        self.assertEqual([m["memory_total_bytes"] for m in mig["instances"]], [9856 << 20, 40192 << 20])
        self.assertEqual([(m["gpu_instance_id"], m["compute_instance_id"]) for m in mig["instances"]], [(7, 0), (1, 0)])
        self.assertTrue(all(m["uuid"].startswith("MIG-") for m in mig["instances"]))
        self.assertEqual(data["devices"][1]["mig"], {"enabled": False, "instances": []})

    def test_devices_without_mig_support_say_nothing_of_it(self):
        r = self.run_gw("devices", "--json", scenario=QUICK + ";gpu*.unsupported=mig")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(all(d["mig"] is None for d in json.loads(r.stdout)["devices"]))
        self.assertNotIn("MIG", self.run_gw("devices", scenario=QUICK + ";gpu*.unsupported=mig").stdout)

    def test_top_shows_the_instance_count(self):
        r = self.run_gw("top", "--once", "--width", "120", scenario=MIG)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("MIG: 2 instances", r.stdout)
        data = json.loads(self.run_gw("top", "--once", "--format", "json", scenario=MIG).stdout)
        self.assertEqual([g["mig_instances"] for g in data["gpus"]], [2, None])
