// The owner file of an annotation socket's directory: a later recorder reads
// it from a shared temporary directory, where anything may have been put.
// Parsing must return or reject, never crash; what it returns must survive
// a round trip through the writer unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "annotate/socket_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto owner = gpuwatch::parse_socket_dir_owner(text);
  if (!owner) return 0;
  if (owner->process.pid == 0) __builtin_trap();
  const auto again = gpuwatch::parse_socket_dir_owner(gpuwatch::format_socket_dir_owner(*owner));
  if (!again || again->host != owner->host || again->boot_id != owner->boot_id ||
      again->process.pid != owner->process.pid || again->process.start_ticks != owner->process.start_ticks) {
    __builtin_trap();
  }
  return 0;
}
