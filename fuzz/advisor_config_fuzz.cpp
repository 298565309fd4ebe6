// The advisor's config parser on arbitrary text: it must accept or throw
// AdvisorConfigError with a "line N: " message, never crash; whatever it
// accepts must print as a file that reads back to the same settings.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/advisor/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuwatch::AdvisorConfig config;
  try {
    config = gpuwatch::parse_advisor_config(text);
  } catch (const gpuwatch::AdvisorConfigError& e) {
    if (std::string_view(e.what()).substr(0, 5) != "line ") __builtin_trap();
    return 0;
  }
  const std::string printed = gpuwatch::format_advisor_config(config);
  if (gpuwatch::format_advisor_config(gpuwatch::parse_advisor_config(printed)) != printed) __builtin_trap();
  return 0;
}
