// CUDA_VISIBLE_DEVICES, and AMD's and Intel's counterparts: which GPUs the
// GPU runtimes show the recorded command, as gpuwatch's device indices, so
// that `record` watches and judges those.
//
// CUDA's rules, as NVIDIA documents them and nvitop reproduces them: a comma
// list of integer indices, GPU UUIDs (`GPU-8932f937-...`, any unique prefix)
// or MIG ids (`MIG-GPU-<uuid>/<gi>/<ci>`, or `MIG-<uuid>` since CUDA 11.1);
// the first entry CUDA cannot use (not a number or id, out of range, an id
// no GPU has, a kind other than the first entry's) hides itself and every
// entry after it; an empty value or `-1` shows no GPU; a GPU listed twice
// shows none.
//
// Indices count in CUDA_DEVICE_ORDER: PCI_BUS_ID is NVML's order (gpuwatch's
// indices); FASTEST_FIRST, the default, puts the fastest GPU first and
// leaves the rest unspecified. On a machine of identical GPUs CUDA keeps
// the PCI bus order, and gpuwatch assumes so; with mixed models an index is
// ambiguous and the selection is left unresolved (the caller then watches
// every GPU and judges by the command's processes) rather than guessed.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/environment_lookup.h"
#include "core/sample.h"

namespace gpuwatch {

struct VisibleEntry {
  enum class Kind { Index, Uuid, Mig };
  Kind kind = Kind::Index;
  unsigned index = 0;  // Kind::Index
  std::string text;    // as written, blanks trimmed
};

// The syntax alone. Stops at the first entry that is no index, UUID or MIG
// id, or whose kind differs from the first entry's (CUDA ignores the rest).
struct VisibleList {
  std::vector<VisibleEntry> entries;
  std::string stopped_at;  // the entry that ended the list; empty if none did
};
VisibleList parse_cuda_visible_devices(std::string_view value);

struct VisibleSelection {
  // gpuwatch indices of the NVIDIA GPUs CUDA shows, in CUDA's order; empty:
  // none. Meaningful only when resolved.
  std::vector<int> gpus;
  // False when an entry cannot be matched with certainty (an index under
  // FASTEST_FIRST on mixed models, a MIG-<uuid> id that names no MIG
  // instance the driver lists, or several).
  bool resolved = true;
  std::vector<std::string> notes;  // what the user should hear, one sentence each
};

// The value of `name` in a /proc/PID/environ text (NUL-separated NAME=VALUE
// entries); nullopt when it is not set there.
std::optional<std::string> environ_value(std::string_view environ, std::string_view name);

// `devices`: every GPU gpuwatch found; only NVIDIA's (backend "nvml") count.
// `device_order`: CUDA_DEVICE_ORDER's value ("" when unset).
VisibleSelection resolve_cuda_visible_devices(std::string_view value, std::string_view device_order,
                                              std::span<const DeviceInfo> devices);

// Every vendor's variables together:
//   NVIDIA  CUDA_VISIBLE_DEVICES (+ CUDA_DEVICE_ORDER): visible_devices.h.
//   AMD     ROCR_VISIBLE_DEVICES first (the ROCr runtime: indices or
//           GPU-<unique_id> UUIDs), then HIP_VISIBLE_DEVICES, or
//           CUDA_VISIBLE_DEVICES, which HIP also reads, as indices into what
//           ROCr left (the order PyTorch's ROCm build documents and tests).
//   Intel   ZE_AFFINITY_MASK (Level Zero): "N" or "N.M" (tile M of device
//           N: the device counts as shown); empty or unset shows all.
// Indices count in PCI bus order, as for identical NVIDIA GPUs: the
// runtimes enumerate in their drivers' order, which is the bus order on
// the machines described in VENDORS.md; nothing else can be known here.
// A vendor none of whose variables is set is not constrained.
struct GpuVisibilityVariables {
  std::optional<std::string> cuda_visible_devices;
  std::string cuda_device_order;
  std::optional<std::string> rocr_visible_devices;
  std::optional<std::string> hip_visible_devices;
  std::optional<std::string> ze_affinity_mask;

  // From a /proc/PID/environ text (NUL-separated NAME=VALUE entries).
  static GpuVisibilityVariables from_environ(std::string_view environ);
  // From gpuwatch's own environment, which the recorded command inherits
  // (cli/ passes base/environment.h's environment_value).
  static GpuVisibilityVariables from_lookup(const EnvironmentLookup& env);
};

struct GpuVisibility {
  // The GPUs shown, ascending, among those of the vendors the variables
  // constrain; meaningful only when resolved.
  std::vector<int> gpus;
  std::vector<std::string> constrained_backends;  // "nvml", "amdgpu", "intel"
  std::vector<std::string> variables;             // those that decided, e.g. "CUDA_VISIBLE_DEVICES"
  // False when CUDA's indices cannot be matched for sure (visible_devices.h):
  // the caller then watches every GPU and judges by the command's processes.
  bool resolved = true;
  std::vector<std::string> notes;  // what the user should hear, one sentence each

  [[nodiscard]] bool constrains_any() const { return !constrained_backends.empty(); }
  [[nodiscard]] bool constrains(std::string_view backend) const;
};

GpuVisibility resolve_gpu_visibility(const GpuVisibilityVariables& variables, std::span<const DeviceInfo> devices);

}  // namespace gpuwatch
