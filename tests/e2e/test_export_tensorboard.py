"""`gpuwatch export RUN --format tensorboard -o DIR` read back by the TFRecord format's own rules:
every record's length and data carry a masked CRC-32C that must match, every event decodes as
event.proto says, and the scalars are the run's (the fake driver's utilization, the training's
logged loss at its annotated steps). Read with TensorBoard's own reader too where it is installed."""
import glob
import json
import os
import struct
import unittest

from harness import QUICK, GpuwatchTestCase

SCENARIO = f"{QUICK};gpu_count=2;gpu1.util=77"
TRAINING = ("import time\n"
            "for step in range(1, 25):\n"
            "    print(f'step {step} loss {1 / step:.4f}', flush=True)\n"
            "    time.sleep(0.05)\n")


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(blob):
    at = 0
    while at < len(blob):
        header = blob[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", blob[at + 8:at + 12])
        assert header_crc == masked(header), "length CRC"
        data = blob[at + 12:at + 12 + length]
        (data_crc,) = struct.unpack("<I", blob[at + 12 + length:at + 16 + length])
        assert data_crc == masked(data), "data CRC"
        yield data
        at += 16 + length


def fields(buf):
    """(field number, value) of a protobuf message: ints, bytes, or raw 8/4-byte values."""
    at = 0
    while at < len(buf):
        key, at = varint(buf, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(buf, at)
        elif wire == 1:
            value, at = buf[at:at + 8], at + 8
        elif wire == 2:
            size, at = varint(buf, at)
            value, at = buf[at:at + size], at + size
        elif wire == 5:
            value, at = buf[at:at + 4], at + 4
        else:
            raise AssertionError(f"wire type {wire}")
        yield number, value


def varint(buf, at):
    shift = value = 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def scalars(blob):
    """[(tag, step, wall_time, value)] of every scalar event, and the file_version."""
    out, version = [], None
    for data in records(blob):
        event = dict(fields(data))
        if 3 in event:
            version = event[3].decode()
            continue
        wall = struct.unpack("<d", event[1])[0]
        step = event.get(2, 0)
        value = dict(fields(dict(fields(event[5]))[1]))
        out.append((value[1].decode(), step, wall, struct.unpack("<f", value[2])[0]))
    return out, version


class ExportTensorboard(GpuwatchTestCase):
    def test_event_file_reads_back(self):
        r = self.run_gw("record", "--name", "tb", "--interval", "0.1", "--no-summary", "--annotate-regex",
                        r"step (?<step>\d+) loss (?<loss>[0-9.]+)", "--", "python3", "-c", TRAINING,
                        scenario=SCENARIO)
        self.assertEqual(r.returncode, 0, r.stderr)
        logdir = os.path.join(self.tmp, "tb")
        r = self.run_gw("export", "tb", "--format", "tensorboard", "-o", logdir)
        self.assertEqual(r.returncode, 0, r.stderr)
        files = glob.glob(os.path.join(logdir, "events.out.tfevents.*.gpuwatch"))
        self.assertEqual(files, [r.stdout.strip()])
        with open(files[0], "rb") as f:
            points, version = scalars(f.read())
        self.assertEqual(version, "brain.Event:2")
        tags = {tag for tag, _, _, _ in points}
        self.assertIn("gpu0/gpu_util_percent", tags)
        self.assertIn("host/cpu_percent", tags)
        gpu1 = [v for tag, _, _, v in points if tag == "gpu1/gpu_util_percent"]
        self.assertTrue(gpu1 and all(v == 77 for v in gpu1), gpu1)
        losses = [(step, v) for tag, step, _, v in points if tag == "log/loss"]
        self.assertGreater(len(losses), 1)
        for step, v in losses:  # the loss printed at step s is 1/s (rounded to 4 places)
            self.assertAlmostEqual(v, 1 / step, places=3)
        # Wall times are the samples' own: in order, and within the run.
        run = json.loads(self.run_gw("runs", "--format", "json").stdout)["runs"][0]
        walls = [w for tag, _, w, _ in points if tag == "gpu0/gpu_util_percent"]
        self.assertEqual(walls, sorted(walls))
        self.assertLessEqual(walls[-1] - walls[0], run["duration_s"] + 1)
        self.assertGreater(walls[0], 1.7e9)
        try:
            from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        except ImportError:
            return
        acc = EventAccumulator(logdir)
        acc.Reload()
        self.assertIn("gpu0/gpu_util_percent", acc.Tags()["scalars"])

    def test_needs_a_folder(self):
        self.run_gw("record", "--name", "x", "--interval", "0.1", "--no-summary", "--", "true", scenario=SCENARIO)
        r = self.run_gw("export", "x", "--format", "tensorboard")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("-o", r.stderr)


if __name__ == "__main__":
    unittest.main()
