#!/usr/bin/env python3
"""What gpuwatch itself costs while it records: CPU time and peak memory.

Two modes (see bench/README.md):

  fake (default)  `gpuwatch record` against the fake NVML driver, once per rate
                  in --rates, on --gpus fake GPUs with the fake's realistic
                  slow calls (20 ms PCIe throughput, 4 ms energy counter).
  real            on a machine with an NVIDIA GPU: `gpuwatch record --interval
                  0.1` and `nvidia-smi --query-gpu=... -lms 100` side by side
                  for the same --duration, each measured the same way.

Each measured process is reaped with os.wait4, whose rusage is that process's
own CPU time (user + sys) and peak RSS, plus those of the children it waited
for. gpuwatch's only child is the recorded command (`sleep`), which costs
about nothing; its peak RSS (~1 MiB) is below gpuwatch's, so the maximum is
gpuwatch's. The measured processes are started through a small `sh` so that
this interpreter's own memory does not leak into ru_maxrss (see _LAUNCH). Device-sample counts, ticks, missed deadlines and lateness come
from `gpuwatch report RUN --format json`.

Python 3 standard library only. Prints a markdown table; --json-out also
writes every number as JSON.
"""
import argparse
import ctypes
import datetime
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NVIDIA_SMI_QUERY = "utilization.gpu,memory.used,power.draw,temperature.gpu"


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def build_type(binary):
    """CMAKE_BUILD_TYPE of the build directory the binary sits in, if any."""
    cache = os.path.join(os.path.dirname(os.path.abspath(binary)), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip() or "(none)"
    except OSError:
        pass
    return "unknown"


def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# Launching. ru_maxrss is kept across exec: a process forked from this
# Python interpreter (~14 MiB resident) reports at least the interpreter's
# RSS, whatever it runs (Linux copies the old address space's high-water mark
# into the process's maxrss at exec; vfork and posix_spawn included). So the
# measured process is forked by a small `sh` instead, which exits at once;
# this script is made a child subreaper (prctl) so that the orphan is
# re-parented to it and can still be reaped with os.wait4. sh runs background
# commands with SIGINT and SIGQUIT ignored; `env --default-signal` (coreutils
# 8.31+) restores them before the measured program starts.
_LAUNCH = 'o=$1; e=$2; shift 2; "$@" </dev/null >"$o" 2>"$e" & echo $!'
_PR_SET_CHILD_SUBREAPER = 36
_launcher_ready = None


def _launcher_prefix():
    """Arguments put before the measured argv: env that resets INT/QUIT, if it can."""
    global _launcher_ready
    if _launcher_ready is None:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            sys.exit(f"sampler_cost: prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")
        ok = subprocess.run(["env", "--default-signal=INT,QUIT", "true"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode == 0
        _launcher_ready = ["env", "--default-signal=INT,QUIT"] if ok else []
    return _launcher_ready


def _vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


class Measured:
    """A process started now (forked by a small sh) and reaped with os.wait4."""

    def __init__(self, argv, env=None, stdout_path=os.devnull, stderr_path=os.devnull):
        self.argv = argv
        self.stderr_path = stderr_path
        self.start = time.monotonic()
        r = subprocess.run(["sh", "-c", _LAUNCH, "sh", stdout_path, stderr_path, *_launcher_prefix(), *argv],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout.strip().isdigit():
            raise RuntimeError(f"could not start {argv[0]}: {r.stderr.strip()}")
        self.pid = int(r.stdout.strip())
        self.wall_s = None
        self.rusage = None
        self.exit_code = None
        self.vm_hwm_kib = None  # last VmHWM seen by poll(): a cross-check of ru_maxrss

    def _reaped(self, status, rusage):
        self.wall_s = time.monotonic() - self.start
        self.rusage = rusage
        self.exit_code = os.waitstatus_to_exitcode(status)

    def poll(self):
        """Reaps the process if it has exited; returns whether it has."""
        if self.rusage is not None:
            return True
        hwm = _vm_hwm_kib(self.pid)
        if hwm is not None:
            self.vm_hwm_kib = max(self.vm_hwm_kib or 0, hwm)
        pid, status, rusage = os.wait4(self.pid, os.WNOHANG)
        if pid:
            self._reaped(status, rusage)
        return self.rusage is not None

    def wait(self):
        while not self.poll():
            time.sleep(0.25)
        return self

    def stop(self, signals=(signal.SIGINT, signal.SIGTERM, signal.SIGKILL), grace_s=3.0):
        """Sends each signal in turn until the process exits, then reaps it."""
        for sig in signals:
            if self.poll():
                return self
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + grace_s
            while time.monotonic() < deadline:
                if self.poll():
                    return self
                time.sleep(0.02)
        return self.wait()

    def kill(self):
        if self.rusage is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait()

    def stderr_text(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def cpu_s(self):
        return self.rusage.ru_utime + self.rusage.ru_stime

    def peak_rss_mib(self):
        """The larger of ru_maxrss and the last VmHWM polled from /proc (both KiB):
        they agree to within the kernel's batching of RSS counters."""
        return max(self.rusage.ru_maxrss, self.vm_hwm_kib or 0) / 1024.0


def gw_env(store, fake_nvml=None, gpus=None):
    env = dict(os.environ)
    env["GPUWATCH_STORE"] = store
    for k in ("FAKE_NVML_SET", "FAKE_NVML_SCENARIO"):
        env.pop(k, None)
    if fake_nvml:
        env["GPUWATCH_NVML_LIBRARY"] = fake_nvml
        # Only the GPU count: the fake's default delays (20 ms PCIe, 4 ms
        # energy) mimic the real driver's slow calls and are part of the cost.
        env["FAKE_NVML_SET"] = f"gpu_count={gpus}"
    return env


def gw_report(binary, env, run):
    r = subprocess.run([binary, "report", run, "--format", "json"], env=env, capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"gpuwatch report {run} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def record(binary, env, name, interval_s, duration_s, workdir):
    argv = [binary, "record", "--interval", f"{interval_s:g}", "--no-summary", "--name", name,
            "--", "sleep", f"{duration_s:g}"]
    m = Measured(argv, env=env, stderr_path=os.path.join(workdir, f"{name}.stderr"))
    return argv, m


def gw_row(m, report, duration_s, rate_hz, gpus_expected=None):
    devices = report.get("devices", [])
    sampler = report.get("run", {}).get("sampler", {})
    samples = sum(int(d.get("samples") or 0) for d in devices)
    gpus = len(devices)
    cpu = m.cpu_s()
    pct = 100.0 * cpu / m.wall_s if m.wall_s else None
    row = {
        "tool": "gpuwatch",
        "rate_hz": rate_hz,
        "duration_s": duration_s,
        "wall_s": round(m.wall_s, 3),
        "gpus": gpus,
        "device_samples": samples,
        "cpu_s": round(cpu, 4),
        "user_s": round(m.rusage.ru_utime, 4),
        "sys_s": round(m.rusage.ru_stime, 4),
        "cpu_percent_one_core": pct,
        "cpu_percent_one_core_per_gpu": pct / gpus if pct is not None and gpus else None,
        "cpu_us_per_device_sample": 1e6 * cpu / samples if samples else None,
        "peak_rss_mib": round(m.peak_rss_mib(), 2),
        "ru_maxrss_mib": round(m.rusage.ru_maxrss / 1024.0, 2),
        "vm_hwm_mib_polled": round(m.vm_hwm_kib / 1024.0, 2) if m.vm_hwm_kib else None,
        "ticks": sampler.get("ticks"),
        "missed_deadlines": sampler.get("missed_deadlines"),
        "mean_late_ms": sampler.get("mean_late_ms"),
        "p99_late_ms": sampler.get("p99_late_ms"),
        "max_late_ms": sampler.get("max_late_ms"),
        "exit_code": m.exit_code,
        "voluntary_ctx_switches": m.rusage.ru_nvcsw,
        "involuntary_ctx_switches": m.rusage.ru_nivcsw,
    }
    if gpus_expected is not None and gpus != gpus_expected:
        row["warning"] = f"expected {gpus_expected} GPUs, report has {gpus}"
    return row


def add_binary_options(parser, fake_prefix=""):
    """--bin, --gpus and --fake-nvml, as every cost bench over the fake driver takes them."""
    parser.add_argument("--bin", default=os.path.join(REPO, "build", "gpuwatch"),
                        help="gpuwatch binary (default: %(default)s)")
    parser.add_argument("--gpus", type=int, default=8, help=fake_prefix + "number of fake GPUs (default: %(default)s)")
    parser.add_argument("--fake-nvml",
                        help=fake_prefix + "the fake driver (default: <bin dir>/tests/fake_nvml/libnvidia-ml-fake.so)")


def check_binary_options(args, tool):
    """Exits with a message naming `tool` when --bin or --gpus cannot work."""
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"{tool}: {args.bin} is not an executable (build gpuwatch, or pass --bin)")
    if args.gpus < 0 or args.gpus > 16:
        sys.exit(f"{tool}: --gpus must be 0..16 (the fake driver's limit)")


def machine_meta(binary):
    """The machine, the date and the build: what every result is read against."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model(),
        "kernel": platform.release(),
        "binary": os.path.abspath(binary),
        "build_type": build_type(binary),
        "argv": sys.argv,
    }


def write_json(path, meta, rows):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=2)
        f.write("\n")


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def fake_mode(args, meta):
    binary = args.bin
    fake = args.fake_nvml or os.path.join(os.path.dirname(os.path.abspath(binary)), "tests", "fake_nvml",
                                          "libnvidia-ml-fake.so")
    if not os.path.exists(fake):
        sys.exit(f"sampler_cost: fake NVML not found at {fake} (build the tests, or pass --fake-nvml)")
    meta["fake_nvml"] = fake
    meta["fake_nvml_set"] = f"gpu_count={args.gpus}"
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpuwatch-bench-") as tmp:
        env = gw_env(os.path.join(tmp, "runs.db"), fake, args.gpus)
        for rate in args.rates:
            name = f"bench-{rate:g}hz"
            load_before = loadavg()
            print(f"sampler_cost: {name}: {args.duration:g} s at {rate:g} Hz on {args.gpus} fake GPUs "
                  f"(load {load_before})...", file=sys.stderr, flush=True)
            argv, m = record(binary, env, name, 1.0 / rate, args.duration, tmp)
            try:
                m.wait()
            except BaseException:
                m.kill()
                raise
            if m.exit_code != 0:
                sys.exit(f"sampler_cost: {' '.join(argv)} exited {m.exit_code}:\n{m.stderr_text()}")
            row = gw_row(m, gw_report(binary, env, name), args.duration, rate, args.gpus)
            row["command"] = " ".join(argv)
            row["load_before"] = load_before
            row["load_after"] = loadavg()
            rows.append(row)
    return rows


def real_mode(args, meta):
    binary = args.bin
    rows = []
    meta["nvml_library"] = os.environ.get("GPUWATCH_NVML_LIBRARY", "(default)")
    with tempfile.TemporaryDirectory(prefix="gpuwatch-bench-") as tmp:
        env = gw_env(os.path.join(tmp, "runs.db"))
        name = "bench-real"
        load_before = loadavg()
        smi_path = shutil.which("nvidia-smi")
        smi = None
        smi_out = os.path.join(tmp, "nvidia-smi.csv")
        smi_argv = ["nvidia-smi", f"--query-gpu={NVIDIA_SMI_QUERY}", "--format=csv,noheader", "-lms", "100"]
        print(f"sampler_cost: real: gpuwatch at 10 Hz and {'nvidia-smi -lms 100' if smi_path else 'no nvidia-smi'} "
              f"for {args.duration:g} s (load {load_before})...", file=sys.stderr, flush=True)
        argv, m = record(binary, env, name, 0.1, args.duration, tmp)
        try:
            if smi_path:
                smi = Measured([smi_path] + smi_argv[1:], stdout_path=smi_out,
                               stderr_path=os.path.join(tmp, "nvidia-smi.stderr"))
                # D seconds after its own start, SIGINT (as Ctrl-C would), then
                # SIGTERM and SIGKILL if it lingers.
                while time.monotonic() - smi.start < args.duration and not smi.poll():
                    m.poll()
                    time.sleep(0.25)
                smi.stop()
            m.wait()
        except BaseException:
            for proc in (m, smi):
                if proc:
                    proc.kill()
            raise
        load_after = loadavg()

        if m.exit_code != 0:
            sys.exit(f"sampler_cost: {' '.join(argv)} exited {m.exit_code}:\n{m.stderr_text()}")
        row = gw_row(m, gw_report(binary, env, name), args.duration, 10)
        row["command"] = " ".join(argv)
        row["load_before"], row["load_after"] = load_before, load_after
        rows.append(row)

        if smi is None:
            rows.append({"tool": "nvidia-smi", "absent": True, "rate_hz": 10, "duration_s": args.duration,
                         "command": " ".join(smi_argv), "note": "nvidia-smi not found on PATH"})
        else:
            with open(smi_out, "rb") as f:
                lines = [ln for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
            cpu = smi.cpu_s()
            gpus = row["gpus"]
            pct = 100.0 * cpu / smi.wall_s if smi.wall_s else None
            rows.append({
                "tool": "nvidia-smi",
                "rate_hz": 10,
                "duration_s": args.duration,
                "wall_s": round(smi.wall_s, 3),
                "gpus": gpus,
                # One CSV line per GPU per query; fewer columns than gpuwatch's.
                "device_samples": len(lines),
                "cpu_s": round(cpu, 4),
                "user_s": round(smi.rusage.ru_utime, 4),
                "sys_s": round(smi.rusage.ru_stime, 4),
                "cpu_percent_one_core": pct,
                "cpu_percent_one_core_per_gpu": pct / gpus if pct is not None and gpus else None,
                "cpu_us_per_device_sample": 1e6 * cpu / len(lines) if lines else None,
                "peak_rss_mib": round(smi.peak_rss_mib(), 2),
                "ru_maxrss_mib": round(smi.rusage.ru_maxrss / 1024.0, 2),
                "vm_hwm_mib_polled": round(smi.vm_hwm_kib / 1024.0, 2) if smi.vm_hwm_kib else None,
                "exit_code": smi.exit_code,
                "command": " ".join(smi_argv),
                "stderr": smi.stderr_text()[:2000],
            })
    return rows


def markdown(rows):
    head = ["tool", "rate Hz", "duration s", "GPUs", "device-samples", "CPU s", "% of one core",
            "% of one core per GPU", "µs CPU per device-sample", "peak RSS MiB", "ticks",
            "missed deadlines", "p99 lateness ms", "max lateness ms"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.get("absent"):
            cells = [r["tool"], fmt(r["rate_hz"]), fmt(r["duration_s"], 0), "absent"] + ["–"] * (len(head) - 4)
        else:
            cells = [r["tool"], f"{r['rate_hz']:g}", f"{r['duration_s']:g}", fmt(r["gpus"]),
                     fmt(r["device_samples"]), fmt(r["cpu_s"], 3), fmt(r["cpu_percent_one_core"], 3),
                     fmt(r["cpu_percent_one_core_per_gpu"], 4), fmt(r["cpu_us_per_device_sample"], 1),
                     fmt(r["peak_rss_mib"], 1), fmt(r.get("ticks")), fmt(r.get("missed_deadlines")),
                     fmt(r.get("p99_late_ms"), 3), fmt(r.get("max_late_ms"), 3)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def parse_rates(text):
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of numbers: {text!r}")
    if not rates or any(r <= 0 for r in rates):
        raise argparse.ArgumentTypeError("rates must be positive")
    return rates


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See bench/README.md for what the numbers mean.")
    p.add_argument("mode", nargs="?", choices=["fake", "real"], default="fake")
    add_binary_options(p, fake_prefix="fake mode: ")
    p.add_argument("--duration", type=float, default=60.0, help="seconds per run (default: %(default)s)")
    p.add_argument("--rates", type=parse_rates, default=[10.0, 100.0],
                   help="fake mode: comma list of sampling rates in Hz (default: 10,100)")
    p.add_argument("--json-out", help="also write all numbers here as JSON")
    args = p.parse_args()
    check_binary_options(args, "sampler_cost")

    meta = {"mode": args.mode, **machine_meta(args.bin)}
    rows = fake_mode(args, meta) if args.mode == "fake" else real_mode(args, meta)

    print(f"gpuwatch sampler cost, mode {args.mode}, {meta['date']}, {meta['nproc']} x {meta['cpu_model']}, "
          f"build {meta['build_type']}")
    print()
    print(markdown(rows))
    for r in rows:
        if r.get("warning"):
            print(f"\nwarning: {r['tool']} {r.get('rate_hz')} Hz: {r['warning']}")
    if args.json_out:
        write_json(args.json_out, meta, rows)


if __name__ == "__main__":
    main()
