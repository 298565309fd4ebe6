#!/usr/bin/env python3
"""Runs a `gpuwatch bench` worker and checks what it writes against the
protocol of docs/bench-workers.md.

    check_worker_lines.py --worker torch -- WORKER ARGS...
        every stdout line is a JSON object; the info line comes first and
        names the worker; every test has a start line and then its result;
        every result has the protocol's fields, succeeded, and measured a
        throughput above zero; the worker exits 0.
    check_worker_lines.py --usage-error -- WORKER BAD-ARGS...
        the worker exits 2 after one error line.
"""
import argparse
import json
import subprocess
import sys

RESULT_FIELDS = (
    "test_name", "test_type", "description", "model_name", "batch_size", "gpu", "duration_seconds",
    "iterations", "throughput_samples_per_second", "avg_iteration_time_ms", "tflops", "gb_per_s",
    "latency_us", "peak_gpu_memory_mb", "precision", "amp", "channels_last", "success", "error_message",
)


def parse_lines(stdout):
    objects = []
    for number, line in enumerate(stdout.splitlines(), 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise AssertionError(f"line {number} is not JSON ({error}): {line!r}") from None
        if not isinstance(value, dict) or "type" not in value:
            raise AssertionError(f"line {number} is not an object with a type: {line!r}")
        objects.append(value)
    return objects


def check_run(objects, worker):
    assert objects, "the worker wrote nothing on stdout"
    info = objects[0]
    assert info["type"] == "info", f"the first line is a {info['type']!r} line, not info"
    assert info.get("worker") == worker, f"info names worker {info.get('worker')!r}, not {worker!r}"
    for key in ("version", "cuda_version", "torch_version", "device", "devices"):
        assert key in info, f"info has no {key!r}"
    started = None
    finished = []
    for line in objects[1:]:
        kind = line["type"]
        if kind == "start":
            assert started is None, f"start of {line['test_name']} before the result of {started}"
            started = line["test_name"]
        elif kind == "result":
            name = line.get("test_name")
            assert name == started, f"result of {name} without its start line (open: {started})"
            started = None
            missing = [key for key in RESULT_FIELDS if key not in line]
            assert not missing, f"{name}: result lacks {missing}"
            assert line["success"] is True, f"{name} failed: {line['error_message']}"
            assert line["error_message"] is None, f"{name}: error_message {line['error_message']!r}"
            assert line["throughput_samples_per_second"] > 0, f"{name}: throughput not above zero"
            assert line["iterations"] > 0 and line["duration_seconds"] > 0, f"{name}: nothing timed"
            assert name not in finished, f"{name} ran twice"
            finished.append(name)
        else:
            raise AssertionError(f"unexpected {kind!r} line: {line}")
    assert started is None, f"{started} started but has no result"
    assert finished, "no test ran"
    return finished


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help="the worker name the info line must carry")
    parser.add_argument("--usage-error", action="store_true", help="expect exit 2 and one error line")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or (args.worker is not None) == args.usage_error:
        parser.error("give either --worker NAME or --usage-error, then -- WORKER ARGS...")
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, check=False)
    sys.stderr.write(done.stderr)
    try:
        objects = parse_lines(done.stdout)
        if args.usage_error:
            assert done.returncode == 2, f"exit status {done.returncode}, want 2"
            assert len(objects) == 1 and objects[0]["type"] == "error" and objects[0].get("message"), \
                f"want one error line with a message, got {objects}"
            print(f"ok: exit 2 with {objects[0]['message']!r}")
        else:
            assert done.returncode == 0, f"exit status {done.returncode}, want 0"
            finished = check_run(objects, args.worker)
            print(f"ok: {len(finished)} tests: {', '.join(finished)}")
    except AssertionError as error:
        sys.stdout.write(done.stdout)
        print(f"FAIL: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
