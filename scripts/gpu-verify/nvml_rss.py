#!/usr/bin/env python3
"""How much resident memory loading and initialising NVML itself costs."""
import ctypes


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


before = rss_kib()
lib = ctypes.CDLL("libnvidia-ml.so.1")
loaded = rss_kib()
lib.nvmlInit_v2()
count = ctypes.c_uint()
lib.nvmlDeviceGetCount_v2(ctypes.byref(count))
handle = ctypes.c_void_p()
lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle))
energy = ctypes.c_ulonglong()
lib.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(energy))
initialised = rss_kib()
print(f"NVML: dlopen +{(loaded - before) / 1024:.1f} MiB, nvmlInit and first calls +{(initialised - loaded) / 1024:.1f} MiB "
      f"(total {(initialised - before) / 1024:.1f} MiB)")
