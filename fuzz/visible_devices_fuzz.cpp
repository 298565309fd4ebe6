// CUDA_VISIBLE_DEVICES (and CUDA_DEVICE_ORDER) from an environment, matched
// against a machine of GPUs, and the job_gpus event messages read back from
// the store: arbitrary bytes must never crash, every GPU chosen must be one
// of the machine's NVIDIA GPUs and chosen once, and what job_gpus_message()
// writes must read back the same.
//
// Input: "<CUDA_VISIBLE_DEVICES>\n<CUDA_DEVICE_ORDER>\n<machine>" where
// each byte of <machine> adds a GPU: its low 2 bits pick its model, bits 2
// and 3 its backend (nvml, amdgpu, intel); the UUIDs share prefixes so that
// prefix matching is exercised. The whole input is also parsed as a
// job_gpus message and as a /proc/PID/environ text whose visible-devices
// variables (every vendor's) choose among the same GPUs: each GPU chosen
// once, and only of a vendor the variables constrain.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/job_gpus.h"
#include "process/visible_devices.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto job = gpuwatch::parse_job_gpus_message(input)) {
    const auto again = gpuwatch::parse_job_gpus_message(gpuwatch::job_gpus_message(*job));
    if (!again || !(*again == *job)) __builtin_trap();
  }

  if (auto v = gpuwatch::environ_value(input, "CUDA_VISIBLE_DEVICES")) {
    if (v->find('\0') != std::string::npos) __builtin_trap();
  }

  const auto first = input.find('\n');
  const std::string_view value = input.substr(0, first);
  std::string_view rest = first == std::string_view::npos ? std::string_view() : input.substr(first + 1);
  const auto second = rest.find('\n');
  const std::string_view order = rest.substr(0, second);
  const std::string_view machine = second == std::string_view::npos ? std::string_view() : rest.substr(second + 1);

  std::vector<gpuwatch::DeviceInfo> devices;
  for (std::size_t i = 0; i < machine.size() && i < 16; ++i) {
    const auto b = static_cast<unsigned char>(machine[i]);
    gpuwatch::DeviceInfo d;
    d.index = static_cast<int>(i);
    d.backend = (b & 8) ? "intel" : (b & 4) ? "amdgpu" : "nvml";
    d.name = "model " + std::to_string(b & 3);
    d.uuid = "GPU-ab" + std::to_string(i % 3) + std::to_string(i);
    d.pci_bus_id = "0000:" + std::to_string(90 - static_cast<int>(i)) + ":00.0";
    devices.push_back(d);
  }
  const gpuwatch::VisibleSelection sel = gpuwatch::resolve_cuda_visible_devices(value, order, devices);
  for (std::size_t i = 0; i < sel.gpus.size(); ++i) {
    const int g = sel.gpus[i];
    if (g < 0 || static_cast<std::size_t>(g) >= devices.size() || devices[static_cast<std::size_t>(g)].backend != "nvml") {
      __builtin_trap();
    }
    if (std::count(sel.gpus.begin(), sel.gpus.end(), g) != 1) __builtin_trap();
  }

  const gpuwatch::GpuVisibility shown =
      gpuwatch::resolve_gpu_visibility(gpuwatch::GpuVisibilityVariables::from_environ(input), devices);
  for (int g : shown.gpus) {
    if (g < 0 || static_cast<std::size_t>(g) >= devices.size()) __builtin_trap();
    if (!shown.constrains(devices[static_cast<std::size_t>(g)].backend)) __builtin_trap();
    if (std::count(shown.gpus.begin(), shown.gpus.end(), g) != 1) __builtin_trap();
  }
  return 0;
}
