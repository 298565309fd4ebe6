// Our own statement of the parts of the NVML C ABI that gpuwatch calls.
// No NVIDIA header is needed to build: the library is opened with dlopen and
// these declarations only have to match it byte for byte. Names are ours; the
// layouts, values and symbol names follow NVIDIA's public NVML API reference.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuwatch::nvml {

// C enums in NVML's ABI are plain ints.
using Return = int;

// Device handles are opaque pointers owned by the driver.
struct DeviceOpaque;
using Device = DeviceOpaque*;

// Return codes that change what we do.
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorUnknown = 999;

// Argument enums.
inline constexpr int kTemperatureGpu = 0;  // sensor 0: the GPU die
inline constexpr int kClockGraphics = 0;
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
inline constexpr int kPcieUtilTxBytes = 0;
inline constexpr int kPcieUtilRxBytes = 1;
inline constexpr int kPstateUnknown = 32;

// Field ids for nvmlDeviceGetFieldValues.
inline constexpr unsigned kFieldMemoryTemp = 82;

// Event type bits (nvmlEventType*), a mask in nvmlDeviceRegisterEvents.
inline constexpr unsigned long long kEventSingleBitEcc = 0x1;
inline constexpr unsigned long long kEventDoubleBitEcc = 0x2;
inline constexpr unsigned long long kEventXidCriticalError = 0x8;

// nvmlDeviceGetMigMode's current mode of a GPU with MIG enabled.
inline constexpr unsigned kMigEnabled = 1;

// "The driver does not know" marker in 64-bit outputs (process memory).
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

// Buffer sizes at least as large as every documented NVML limit.
inline constexpr unsigned kStringBufferSize = 256;

struct Utilization {
  unsigned gpu;
  unsigned memory;
};

// Plain nvmlDeviceGetMemoryInfo: `used` includes the driver's reservation.
struct MemoryV1 {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlDeviceGetMemoryInfo_v2: `used` excludes `reserved`.
struct MemoryV2 {
  unsigned version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
inline constexpr unsigned kMemoryV2Version = static_cast<unsigned>(sizeof(MemoryV2)) | (2U << 24);

// Layout written by nvmlDeviceGetPciInfo_v2/_v3. The plain (v1) call writes a
// 52-byte struct whose first 16 bytes are the bus id, so reading
// `bus_id_legacy` after a v1 call is correct and the buffer is large enough.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};

// Element of the plain (v1) running-process calls.
struct ProcessInfoV1 {
  unsigned pid;
  unsigned long long used_gpu_memory;
};

// Element of the _v2 and _v3 running-process calls (24 bytes on x86-64).
struct ProcessInfoV2 {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

// Element of nvmlDeviceGetProcessUtilization: one per process that used the
// GPU since the time asked for (32 bytes on x86-64).
struct ProcessUtilizationSample {
  unsigned pid;
  unsigned long long time_stamp_us;  // CPU time of the sample
  unsigned sm_util;                  // % of the SMs' time, over the driver's sample period
  unsigned mem_util;
  unsigned enc_util;
  unsigned dec_util;
};

// Event sets are opaque handles owned by the driver.
struct EventSetOpaque;
using EventSet = EventSetOpaque*;

// What nvmlEventSetWait_v2 writes (32 bytes on x86-64). The instance ids are
// ~0 where the event is not attributable to a MIG instance.
struct EventData {
  Device device;
  unsigned long long event_type;  // one kEvent* bit
  unsigned long long event_data;  // the XID number for XID events, else 0
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
inline constexpr unsigned kNoInstance = ~0U;

// Value type tags of FieldValue::value.
inline constexpr int kValueTypeDouble = 0;
inline constexpr int kValueTypeUnsignedInt = 1;
inline constexpr int kValueTypeUnsignedLong = 2;
inline constexpr int kValueTypeUnsignedLongLong = 3;
inline constexpr int kValueTypeSignedLongLong = 4;
inline constexpr int kValueTypeSignedInt = 5;

union Value {
  double d;
  unsigned ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
};

struct FieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;     // µs since 1970
  long long latency_usec;
  int value_type;
  Return nvml_return;      // per-field result; check before reading value
  Value value;
};

// GPM (GPU performance monitoring, Hopper and newer). A sample is an opaque
// buffer the library allocates; metrics are computed from two of them.
struct GpmSampleOpaque;
using GpmSample = GpmSampleOpaque*;

// Ids of nvmlGpmMetricId_t that gpuwatch asks for.
inline constexpr unsigned kGpmSmUtil = 2;          // % of SMs busy (DCGM's "SM active")
inline constexpr unsigned kGpmSmOccupancy = 3;     // % of the theoretical warps resident
inline constexpr unsigned kGpmAnyTensorUtil = 5;
inline constexpr unsigned kGpmDramBwUtil = 10;     // % of peak DRAM bandwidth
inline constexpr unsigned kGpmFp64Util = 11;
inline constexpr unsigned kGpmFp32Util = 12;
inline constexpr unsigned kGpmFp16Util = 13;
inline constexpr unsigned kGpmNvlinkTotalRxPerSec = 60;  // MiB/s, all links
inline constexpr unsigned kGpmNvlinkTotalTxPerSec = 61;

inline constexpr unsigned kGpmMetricsGetVersion = 1;
inline constexpr unsigned kGpmSupportVersion = 1;

// One entry of nvmlGpmMetricsGet_t's array: the caller sets metric_id, the
// library fills nvml_return and, where that is success, value.
struct GpmMetric {
  unsigned metric_id;
  Return nvml_return;
  double value;
  struct {
    char* short_name;  // may be null
    char* long_name;
    char* unit;
  } info;
};

// The array's length is NVML_GPM_METRIC_MAX of the header a program was built
// with, which grew (98 in NVML 11.8-12.8, 210 in 12.9-13.1, 333 in 13.3) while
// the struct's version stayed 1. A driver reads `num_metrics` entries; the
// buffer has room for the largest header known, so that a driver that
// touches its whole struct still stays inside ours. `num_metrics` is kept
// within 98, the smallest, which every GPM driver accepts.
inline constexpr std::size_t kGpmMetricSlots = 333;
inline constexpr unsigned kGpmMetricsEveryDriverTakes = 98;
struct GpmMetricsGet {
  unsigned version;
  unsigned num_metrics;
  GpmSample sample1;  // the earlier sample
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricSlots];
};

struct GpmSupport {
  unsigned version;
  unsigned is_supported_device;
};

static_assert(sizeof(MemoryV1) == 24);
static_assert(sizeof(MemoryV2) == 40);
static_assert(sizeof(PciInfo) == 68);
static_assert(sizeof(ProcessInfoV1) == 16);
static_assert(sizeof(ProcessInfoV2) == 24);
static_assert(sizeof(FieldValue) == 40);
static_assert(sizeof(GpmMetric) == 40);
static_assert(offsetof(GpmMetricsGet, metrics) == 24);
static_assert(sizeof(GpmSupport) == 8);
static_assert(sizeof(EventData) == 32);

// Function signatures, by shape.
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemStringFn = Return (*)(char*, unsigned);
using GetCountFn = Return (*)(unsigned*);
using GetHandleByIndexFn = Return (*)(unsigned, Device*);
using DeviceStringFn = Return (*)(Device, char*, unsigned);
using DevicePciInfoFn = Return (*)(Device, PciInfo*);
using DeviceMemoryV1Fn = Return (*)(Device, MemoryV1*);
using DeviceMemoryV2Fn = Return (*)(Device, MemoryV2*);
using DeviceUtilizationFn = Return (*)(Device, Utilization*);
using DeviceUintFn = Return (*)(Device, unsigned*);
using DeviceIntFn = Return (*)(Device, int*);
using DeviceUllFn = Return (*)(Device, unsigned long long*);
using DeviceEnumUintFn = Return (*)(Device, int, unsigned*);
using DeviceFieldValuesFn = Return (*)(Device, int, FieldValue*);
// The element type depends on the symbol's version; see NvmlLibrary.
using DeviceProcessesFn = Return (*)(Device, unsigned*, void*);
using GpmQueryDeviceSupportFn = Return (*)(Device, GpmSupport*);
using GpmSampleAllocFn = Return (*)(GpmSample*);
using GpmSampleFreeFn = Return (*)(GpmSample);
using GpmSampleGetFn = Return (*)(Device, GpmSample);
using GpmMetricsGetFn = Return (*)(GpmMetricsGet*);
using EventSetCreateFn = Return (*)(EventSet*);
using EventSetFreeFn = Return (*)(EventSet);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned);
using DeviceMigModeFn = Return (*)(Device, unsigned*, unsigned*);  // current, pending
using DeviceIndexedHandleFn = Return (*)(Device, unsigned, Device*);
using DeviceProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*, unsigned*, unsigned long long);

}  // namespace gpuwatch::nvml
