// The kinds of event a GPU itself causes, as Event::kind and
// DeviceEvent::kind hold them. They are stored with runs and reports
// (docs/report-json.md), so they are a contract: the backends that make
// them, the sink that stores them and the screens that colour them name
// them from here.
#pragma once

#include <string_view>

namespace gpuwatch {

inline constexpr std::string_view kXidEventKind = "xid";
inline constexpr std::string_view kEccDoubleBitEventKind = "ecc_double_bit";
// Corrected: these can come by thousands and cost the job nothing.
inline constexpr std::string_view kEccSingleBitEventKind = "ecc_single_bit";
// An NVML event type gpuwatch did not ask for by name.
inline constexpr std::string_view kNvmlEventKind = "nvml_event";
inline constexpr std::string_view kGpuLostEventKind = "gpu_lost";
// Stands for the events of one GPU the sampler let go in a storm (see
// kMaxDeviceEventsPerTick in sampler/sampler.h); its message says how many.
inline constexpr std::string_view kEventsDroppedEventKind = "events_dropped";
// Not a GPU's own: at the end of a run, how many other users' processes the
// DRM fdinfo scan (amdgpu, Intel) could not look into, so that the run's
// process list is not taken for every process that used the GPU.
inline constexpr std::string_view kProcessesHiddenEventKind = "processes_hidden";

}  // namespace gpuwatch
