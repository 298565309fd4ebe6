#!/usr/bin/env python3
"""Peak memory and time of `gpuwatch import` on a large file (issue 9 item 9, issue 22 item 12).

    bench/import_rss.py --bin build/gpuwatch [--mb 200] [--format jsonl jsonl-dense json csv]
                        [--huge-record-mb 1000]

Writes a file of about --mb MB per format (2 GPUs at 10 Hz, every metric, as
`gpuwatch export` writes them; jsonl-dense is one metric per line, the most
samples per byte; json is the seed tools' one-GPU sample array), then runs
`/usr/bin/time -v gpuwatch import FILE` into a scratch store and prints one
JSON line per format: file size, samples, peak RSS (and per sample), wall time.
With --huge-record-mb, also a JSON lines file whose second line holds a GPU
name of that many MB: the import should fail, naming the line and the field;
its peak RSS is printed with what it said.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile

START_NS = 1_795_672_547_000_000_000
METRICS = ('"gpu_util_percent":{u},"mem_util_percent":40,"mem_used_bytes":{mem},"mem_total_bytes":85520809984,'
           '"mem_reserved_bytes":536870912,"power_watts":{p},"power_limit_watts":700,"energy_joules":{e},'
           '"temp_gpu_celsius":40,"temp_mem_celsius":42,"sm_clock_mhz":1980,"mem_clock_mhz":2619,'
           '"fan_percent":30,"perf_state":0,"clock_event_reasons":0,"pcie_link_gen":5,"pcie_link_width":16,'
           '"pcie_tx_bytes_per_sec":1024000,"pcie_rx_bytes_per_sec":2048000,"slow_read_age_seconds":0.19935')


def iso(ns):
    s, frac = divmod(ns, 1_000_000_000)
    # Times of day are enough: the date stays 2026-11-26 for 36 hours' worth from 05:55.
    day, rest = divmod(s - START_NS // 1_000_000_000 + 5 * 3600 + 55 * 60 + 47, 86400)
    return f"2026-11-{26 + day:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}.{frac // 1000:06d}"


def records(fmt):
    tick = 0
    while True:
        ns = START_NS + tick * 100_000_000
        for gpu in (0, 1):
            u, p = (tick * 7 + gpu * 13) % 101, 100 + (tick * 3 + gpu) % 600
            mem = 1_000_000_000 + (tick * 4096) % 80_000_000_000
            if fmt == "jsonl-dense":
                yield '{"type":"device","wall_ns":%d,"gpu_index":%d,"gpu_util_percent":%d}\n' % (ns, gpu, u)
            elif fmt == "jsonl":
                yield ('{"type":"device","timestamp":"%sZ","wall_ns":%d,"elapsed_s":%.9f,"gpu_index":%d,'
                       '"gpu_name":"NVIDIA H100 80GB HBM3",' % (iso(ns)[:-3], ns, tick / 10, gpu)
                       + METRICS.format(u=u, mem=mem, p=p, e=100000 + tick) + "}\n")
            elif fmt == "csv":
                yield (f"{iso(ns)[:-3]}Z,{tick / 10:.9f},{gpu},NVIDIA H100 80GB HBM3,{u},40,{mem},85520809984,"
                       f"536870912,{p},700,{100000 + tick},40,42,1980,2619,1980,2619,30,0,0,5,16,5,16,1024000,"
                       "2048000,0.19935\n")
            else:
                yield (('' if tick == 0 and gpu == 0 else ',\n') +
                       '{"timestamp":"%s","gpu_index":%d,"gpu_name":"NVIDIA H100 80GB HBM3","gpu_type":"NVIDIA",'
                       '"utilization":%d,"memory_used":%.1f,"memory_total":81559,"power":%d,"temperature":40,'
                       '"elapsed_seconds":%.3f}' % (iso(ns), gpu, u, mem / 1048576, p, tick / 10))
        tick += 1


def write_file(path, fmt, size_bytes):
    count = 0
    with open(path, "w", encoding="ascii") as f:
        written = 0
        if fmt == "csv":
            header = ("timestamp,elapsed_s,gpu_index,gpu_name,gpu_util_percent,mem_util_percent,mem_used_bytes,"
                      "mem_total_bytes,mem_reserved_bytes,power_watts,power_limit_watts,energy_joules,"
                      "temp_gpu_celsius,temp_mem_celsius,sm_clock_mhz,mem_clock_mhz,sm_clock_max_mhz,"
                      "mem_clock_max_mhz,fan_percent,perf_state,clock_event_reasons,pcie_link_gen,pcie_link_width,"
                      "pcie_link_gen_max,pcie_link_width_max,pcie_tx_bytes_per_sec,pcie_rx_bytes_per_sec,"
                      "slow_read_age_seconds\n")
            f.write(header)
        elif fmt == "json":
            f.write("[\n")
        for record in records(fmt):
            f.write(record)
            written += len(record)
            count += 1
            if written >= size_bytes:
                break
        if fmt == "json":
            f.write("\n]\n")
    return count


def measure(binary, path, store, may_fail=False):
    result = subprocess.run(["/usr/bin/time", "-v", binary, "import", path, "--store", store],
                            capture_output=True, text=True, check=False)
    failed = "Command exited with non-zero status" in result.stderr
    if failed and not may_fail:
        raise SystemExit(f"import failed: {result.stderr[-2000:]}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", result.stderr).group(1)
    minutes, seconds = wall.rsplit(":", 1)
    said = result.stderr.split("\tCommand being timed")[0].strip()[:300] if failed else result.stdout.strip()
    return rss_kb, float(minutes.split(":")[-1]) * 60 + float(seconds), said


def huge_record(binary, work, mb):
    """One JSON line with a GPU name of `mb` MB between two ordinary ones."""
    path = os.path.join(work, "huge.jsonl")
    line = '{"type":"device","wall_ns":%d,"gpu_index":0,"power_watts":100}\n'
    with open(path, "w", encoding="ascii") as f:
        f.write(line % START_NS)
        f.write('{"type":"device","wall_ns":%d,"gpu_index":0,"gpu_name":"' % (START_NS + 100_000_000))
        chunk = "n" * (1 << 20)
        for _ in range(int(mb * 1e6) >> 20):
            f.write(chunk)
        f.write('"}\n')
        f.write(line % (START_NS + 200_000_000))
    rss_kb, wall_s, said = measure(binary, path, os.path.join(work, "huge.db"), may_fail=True)
    print(json.dumps({"schema_version": 1, "format": "jsonl, one huge record",
                      "file_mb": round(os.path.getsize(path) / 1e6, 1), "peak_rss_mb": round(rss_kb / 1024, 1),
                      "wall_s": wall_s, "said": said}), flush=True)
    os.unlink(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--mb", type=float, default=200)
    formats = ["jsonl", "jsonl-dense", "json", "csv"]
    parser.add_argument("--format", nargs="*", default=formats, choices=formats)
    parser.add_argument("--huge-record-mb", type=float, default=0)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="gw-import-rss")
    try:
        for fmt in args.format:
            path = os.path.join(work, f"big.{fmt}")
            samples = write_file(path, fmt, int(args.mb * 1e6))
            rss_kb, wall_s, line = measure(os.path.abspath(args.bin), path, os.path.join(work, f"{fmt}.db"))
            print(json.dumps({"schema_version": 1, "format": fmt, "file_mb": round(os.path.getsize(path) / 1e6, 1),
                              "samples": samples, "peak_rss_mb": round(rss_kb / 1024, 1),
                              "rss_bytes_per_sample": round(rss_kb * 1024 / samples), "wall_s": wall_s,
                              "import": line}), flush=True)
            os.unlink(path)
        if args.huge_record_mb:
            huge_record(os.path.abspath(args.bin), work, args.huge_record_mb)
    finally:
        shutil.rmtree(work, True)


if __name__ == "__main__":
    main()
