// Every procfs parser on the same bytes: each must return or reject, never
// crash, and what it returns must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/procfs/host.h"
#include "backends/procfs/process_details.h"
#include "base/process_identity.h"
#include "core/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto st = gpuwatch::parse_proc_stat(text)) {
    if (st->all.busy > st->all.total) __builtin_trap();
    for (const auto& core : st->cores) {
      if (core.busy > core.total) __builtin_trap();
      if (const auto p = gpuwatch::cpu_percent(core, st->all); p && (*p < 0 || *p > 100)) {
        __builtin_trap();
      }
    }
  }
  if (const auto mem = gpuwatch::parse_meminfo(text)) {
    if (mem->total_bytes % 1024 != 0) __builtin_trap();
  }
  if (const auto pid = gpuwatch::parse_pid_stat(text)) {
    if (pid->comm.size() >= size) __builtin_trap();
  }
  (void)gpuwatch::parse_io_read_bytes(text);
  if (const auto state = gpuwatch::parse_pid_state(text); state && (*state < 'A' || *state > 'z')) __builtin_trap();
  if (const auto pid = gpuwatch::parse_pid(text)) {
    if (*pid == 0 || *pid > 0x7fffffffU || text.size() > 10) __builtin_trap();
  }
  (void)gpuwatch::parse_status_uid(text);
  // The cut limit from the first byte, so that cuts inside characters are tried.
  const std::size_t max_bytes = size == 0 ? 4096 : data[0];
  const auto cmd = gpuwatch::parse_cmdline(text, max_bytes);
  if (cmd.size() > max_bytes || cmd.size() > size) __builtin_trap();
  for (std::size_t i = 0; i < cmd.size();) {  // valid UTF-8 without C0 controls
    const auto n = gpuwatch::utf8_sequence_length(cmd, i);
    if (n == 0 || static_cast<unsigned char>(cmd[i]) < 0x20 || cmd[i] == 0x7f) __builtin_trap();
    i += n;
  }
  return 0;
}
