#!/usr/bin/env python3
"""CPU and wall time of each NVML call gpuwatch makes, on a real GPU.

Uses pynvml (nvidia-ml-py). For each call: N repetitions, then CPU time per
call (time.process_time, this thread's process) and wall time per call. Tells
which calls burn CPU (busy-wait in the driver) and which only block.
"""
import argparse
import time

import pynvml as nv


def measure(name, fn, n):
    fn()  # warm up
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        try:
            fn()
        except nv.NVMLError:
            pass
    c1, w1 = time.process_time(), time.perf_counter()
    print(f"| {name} | {n} | {(w1 - w0) / n * 1e6:.1f} | {(c1 - c0) / n * 1e6:.1f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("-n", type=int, default=200, help="repetitions of each cheap call")
    args = p.parse_args()
    nv.nvmlInit()
    h = nv.nvmlDeviceGetHandleByIndex(0)
    print(f"device: {nv.nvmlDeviceGetName(h)}, driver {nv.nvmlSystemGetDriverVersion()}")
    print("| call | repetitions | wall µs per call | CPU µs per call |")
    print("|---|---|---|---|")
    n = args.n
    measure("utilization", lambda: nv.nvmlDeviceGetUtilizationRates(h), n)
    measure("memory info v2", lambda: nv.nvmlDeviceGetMemoryInfo(h, nv.nvmlMemory_v2), n)
    measure("power usage", lambda: nv.nvmlDeviceGetPowerUsage(h), n)
    measure("enforced power limit", lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h), n)
    measure("temperature", lambda: nv.nvmlDeviceGetTemperature(h, 0), n)
    measure("field values (mem temp)", lambda: nv.nvmlDeviceGetFieldValues(h, [82]), n)
    measure("SM clock", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM), n)
    measure("memory clock", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM), n)
    measure("performance state", lambda: nv.nvmlDeviceGetPerformanceState(h), n)
    measure("clock event reasons", lambda: nv.nvmlDeviceGetCurrentClocksEventReasons(h), n)
    measure("PCIe link gen", lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h), n)
    measure("PCIe link width", lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h), n)
    measure("energy counter", lambda: nv.nvmlDeviceGetTotalEnergyConsumption(h), max(n // 4, 10))
    measure("PCIe throughput TX", lambda: nv.nvmlDeviceGetPcieThroughput(h, nv.NVML_PCIE_UTIL_TX_BYTES), 20)
    measure("compute processes", lambda: nv.nvmlDeviceGetComputeRunningProcesses(h), max(n // 4, 10))
    measure("graphics processes", lambda: nv.nvmlDeviceGetGraphicsRunningProcesses(h), max(n // 4, 10))
    measure("MPS processes", lambda: nv.nvmlDeviceGetMPSComputeRunningProcesses(h), max(n // 4, 10))
    nv.nvmlShutdown()


if __name__ == "__main__":
    main()
