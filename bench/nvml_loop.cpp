// Diagnostic, not part of the build: the driver's own cost of each way of
// reading the fast metrics at 10 Hz, without any of gpuwatch's code, so that
// the recorder's cost can be split into "the driver" and "ours".
//   six      the 6 calls gpuwatch read each tick before the cadence split
//   tick     utilization, memory and power: what a tick reads today
//   mem      memory alone
//   samples  memory each tick, and utilization and power once a second from
//            the driver's own sample buffers (nvmlDeviceGetSamples); also
//            prints how many samples the driver kept per second
//   empty    the wake-ups alone
// and, to price single calls made once per tick (subtract "empty"):
//   memv1    nvmlDeviceGetMemoryInfo (v1: used includes the driver's reservation)
//   energy   nvmlDeviceGetTotalEnergyConsumption
//   energyfv the same counter as field value 83 (NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION)
//   pcie     nvmlDeviceGetPcieThroughput (TX)
//   procs    nvmlDeviceGetComputeRunningProcesses_v3 (count only)
//   gpm      what gpuwatch's GPM reader does each slow round (nvml_gpm.cpp):
//            one nvmlGpmSampleGet and one nvmlGpmMetricsGet of its 9 metrics
//            over the window since the previous sample (Hopper and newer)
// Build: g++ -O2 -std=c++20 -Isrc bench/nvml_loop.cpp -ldl -o nvml_loop; run: nvml_loop SECONDS [MODE...]
#include <dlfcn.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/nvml/nvml_api.h"

namespace {
using FnVoid = int (*)();
using FnUintPtr = int (*)(unsigned, void*);
using FnPtrPtr = int (*)(void*, void*);
using FnPtrUintPtr = int (*)(void*, unsigned, void*);
// nvmlDeviceGetSamples(device, type, lastSeenTimeStamp, *valueType, *count, *samples)
using FnSamples = int (*)(void*, int, unsigned long long, int*, unsigned*, void*);
struct Sample {
  unsigned long long time_us;
  unsigned long long value;  // a union in NVML; 8 bytes
};
constexpr int kPowerSamples = 0;
constexpr int kUtilSamples = 1;

double cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

void next_tick(timespec& next) {
  next.tv_nsec += 100000000;
  if (next.tv_nsec >= 1000000000) {
    next.tv_nsec -= 1000000000;
    next.tv_sec++;
  }
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
}
}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 30;
  std::vector<std::string> modes;
  for (int i = 2; i < argc; ++i) modes.emplace_back(argv[i]);
  if (modes.empty()) modes = {"six", "tick", "mem", "samples", "empty"};
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (h == nullptr) {
    std::fprintf(stderr, "no libnvidia-ml.so.1\n");
    return 1;
  }
  reinterpret_cast<FnVoid>(dlsym(h, "nvmlInit_v2"))();
  void* dev = nullptr;
  reinterpret_cast<FnUintPtr>(dlsym(h, "nvmlDeviceGetHandleByIndex_v2"))(0, &dev);
  auto util = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetUtilizationRates"));
  auto mem = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetMemoryInfo_v2"));
  auto power = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetPowerUsage"));
  auto temp = reinterpret_cast<FnPtrUintPtr>(dlsym(h, "nvmlDeviceGetTemperature"));
  auto clock = reinterpret_cast<FnPtrUintPtr>(dlsym(h, "nvmlDeviceGetClockInfo"));
  auto reasons = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons"));
  auto samples = reinterpret_cast<FnSamples>(dlsym(h, "nvmlDeviceGetSamples"));
  auto mem_v1 = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetMemoryInfo"));
  auto energy = reinterpret_cast<FnPtrPtr>(dlsym(h, "nvmlDeviceGetTotalEnergyConsumption"));
  auto fields = reinterpret_cast<FnPtrUintPtr>(dlsym(h, "nvmlDeviceGetFieldValues"));
  auto pcie = reinterpret_cast<FnPtrUintPtr>(dlsym(h, "nvmlDeviceGetPcieThroughput"));
  auto procs = reinterpret_cast<int (*)(void*, unsigned*, void*)>(dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3"));
  namespace nv = gpuwatch::nvml;
  auto gpm_alloc = reinterpret_cast<nv::GpmSampleAllocFn>(dlsym(h, "nvmlGpmSampleAlloc"));
  auto gpm_get = reinterpret_cast<int (*)(void*, nv::GpmSample)>(dlsym(h, "nvmlGpmSampleGet"));
  auto gpm_metrics = reinterpret_cast<nv::GpmMetricsGetFn>(dlsym(h, "nvmlGpmMetricsGet"));
  nv::GpmSample gpm_samples[2] = {nullptr, nullptr};
  static nv::GpmMetricsGet gpm_request{};
  int gpm_failures = 0;
  if (gpm_alloc != nullptr && gpm_get != nullptr && gpm_metrics != nullptr) {
    gpm_alloc(&gpm_samples[0]);
    gpm_alloc(&gpm_samples[1]);
    gpm_get(dev, gpm_samples[0]);
    for (unsigned id : {nv::kGpmSmUtil, nv::kGpmSmOccupancy, nv::kGpmAnyTensorUtil, nv::kGpmDramBwUtil, nv::kGpmFp64Util,
                        nv::kGpmFp32Util, nv::kGpmFp16Util, nv::kGpmNvlinkTotalRxPerSec, nv::kGpmNvlinkTotalTxPerSec}) {
      gpm_request.metrics[gpm_request.num_metrics++].metric_id = id;
    }
    gpm_request.version = nv::kGpmMetricsGetVersion;
  }
  // nvmlFieldValue_t: fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, value (8)
  struct FieldValue {
    unsigned field_id, scope_id;
    long long timestamp, latency_us;
    int value_type, nvml_return;
    unsigned long long value;
  };
  unsigned buf[64];
  auto read_mem = [&] {
    buf[0] = 40 | (2 << 24);  // nvmlMemory_v2 version
    mem(dev, buf);
  };
  std::vector<Sample> kept(4096);
  unsigned long long last_seen[2] = {0, 0};
  unsigned long long got[2] = {0, 0};
  auto read_buffer = [&](int type) {
    int value_type = 0;
    unsigned count = static_cast<unsigned>(kept.size());
    if (samples(dev, type, last_seen[type], &value_type, &count, kept.data()) != 0) return;
    for (unsigned i = 0; i < count; ++i) {
      if (kept[i].time_us > last_seen[type]) last_seen[type] = kept[i].time_us;
    }
    got[type] += count;
  };
  for (const std::string& mode : modes) {
    timespec next{};
    clock_gettime(CLOCK_MONOTONIC, &next);
    if (mode == "samples") {  // start the buffers' cursors now
      read_buffer(kPowerSamples);
      read_buffer(kUtilSamples);
      got[0] = got[1] = 0;
    }
    const double start = cpu_seconds();
    for (int i = 0; i < seconds * 10; ++i) {
      if (mode == "six") {
        util(dev, buf);
        read_mem();
        power(dev, buf);
        temp(dev, 0, buf);
        clock(dev, 1, buf);
        reasons(dev, buf);
      } else if (mode == "tick") {
        util(dev, buf);
        read_mem();
        power(dev, buf);
      } else if (mode == "mem") {
        read_mem();
      } else if (mode == "memv1") {
        mem_v1(dev, buf);
      } else if (mode == "energy") {
        energy(dev, buf);
      } else if (mode == "energyfv") {
        FieldValue fv{};
        fv.field_id = 83;
        fields(dev, 1, &fv);
      } else if (mode == "pcie") {
        pcie(dev, 0, buf);
      } else if (mode == "procs") {
        unsigned count = 0;
        procs(dev, &count, nullptr);
      } else if (mode == "gpm") {
        if (gpm_samples[0] == nullptr) break;
        // The newer sample becomes the next window's older one.
        nv::GpmSample older = gpm_samples[i % 2];
        nv::GpmSample newer = gpm_samples[(i + 1) % 2];
        gpm_get(dev, newer);
        gpm_request.sample1 = older;
        gpm_request.sample2 = newer;
        if (gpm_metrics(&gpm_request) != 0) ++gpm_failures;
      } else if (mode == "samples") {
        read_mem();
        if (i % 10 == 9) {
          read_buffer(kPowerSamples);
          read_buffer(kUtilSamples);
        }
      }
      next_tick(next);
    }
    const double cpu = cpu_seconds() - start;
    std::printf("%-8s 10 Hz for %d s: %.3f s CPU = %.3f %% of one core, %.1f us per tick", mode.c_str(), seconds,
                cpu, cpu / seconds * 100, cpu / (seconds * 10) * 1e6);
    if (mode == "gpm") {
      std::printf("; %d failed windows; SM active %.1f %%", gpm_failures, gpm_request.metrics[0].value);
    }
    if (mode == "samples") {
      std::printf("; driver kept %.1f power and %.1f utilization samples per second", got[0] / double(seconds),
                  got[1] / double(seconds));
    }
    std::printf("\n");
  }
  FieldValue fv{};
  fv.field_id = 83;
  fields(dev, 1, &fv);
  unsigned long long mj = 0;
  energy(dev, &mj);
  std::printf("energy: function %llu mJ, field 83 %llu mJ (return %d)\n", mj, fv.value, fv.nvml_return);
}
