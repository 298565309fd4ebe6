#!/usr/bin/env python3
"""CPU and memory of a live terminal view: `gpuwatch top` at 1 s and 0.1 s, and, where it is
installed, nvtop at the same rates, each alone on a pseudo-terminal of 120x40 for D seconds.

    python3 bench/top_cost.py BUILD/gpuwatch [--seconds 30] [--fake-gpus 8 --fake-nvml LIB]

With --fake-gpus, gpuwatch reads the fake NVML library (tests/fake_nvml) with that many GPUs;
nvtop cannot, so it is measured only on a real GPU. CPU is utime+stime from /proc/PID/stat
between the end of a 3 s warm-up and the end of the run; memory is VmHWM (peak RSS)."""
import argparse
import fcntl
import os
import pty
import select
import signal
import shutil
import struct
import termios
import time

WARMUP_S = 3


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure(argv, seconds, env):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)

    def drain(until):
        while time.monotonic() < until:
            ready, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
            if ready:
                try:
                    os.read(fd, 65536)
                except OSError:
                    return

    drain(time.monotonic() + WARMUP_S)
    start = proc_cpu_seconds(pid)
    drain(time.monotonic() + seconds)
    cpu = proc_cpu_seconds(pid) - start
    rss = proc_peak_rss_mib(pid)
    os.write(fd, b"q")
    drain(time.monotonic() + 0.5)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return cpu / seconds * 100, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpuwatch")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--fake-gpus", type=int, default=0)
    ap.add_argument("--fake-nvml", default="")
    args = ap.parse_args()
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    if args.fake_gpus:
        env.update(GPUWATCH_NVML_LIBRARY=args.fake_nvml,
                   FAKE_NVML_SET=f"gpu_count={args.fake_gpus};pcie_delay_ms=0;energy_delay_ms=0")
    where = f"{args.fake_gpus} fake GPUs" if args.fake_gpus else "this machine's GPUs"
    for interval in ("1", "0.1"):
        cpu, rss = measure([args.gpuwatch, "top", "--interval", interval], args.seconds, env)
        print(f"gpuwatch top --interval {interval} ({where}, {args.seconds:.0f} s): "
              f"{cpu:.3f} % of one core, peak RSS {rss:.1f} MiB", flush=True)
    nvtop = shutil.which("nvtop")
    if nvtop and not args.fake_gpus:
        for tenths in ("10", "1"):  # nvtop -d takes tenths of a second
            cpu, rss = measure([nvtop, "-d", tenths], args.seconds, env)
            print(f"nvtop -d {tenths} ({where}, {args.seconds:.0f} s): {cpu:.3f} % of one core, "
                  f"peak RSS {rss:.1f} MiB", flush=True)
    elif not args.fake_gpus:
        print("nvtop is not installed here: no comparison")


if __name__ == "__main__":
    main()
