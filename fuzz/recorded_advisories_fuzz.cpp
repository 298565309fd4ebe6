// Recorded advisory events read back (analysis/advisor/recorded.h) from
// arbitrary text, as an imported file can hold: one event per line, at one
// second apart. Never a crash; every advisory read back has an id without
// spaces, a raised time that is not negative, and a message written from it
// reads back to the same id and GPU.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advisor/recorded.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<gpuwatch::Event> events;
  std::int64_t t_ns = 0;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    events.push_back({{t_ns, t_ns}, std::nullopt, "advisory", std::string(text.substr(begin, end - begin))});
    t_ns += 1'000'000'000;
    begin = end + 1;
  }
  for (const gpuwatch::RecordedAdvisory& r : gpuwatch::recorded_advisories(events, t_ns)) {
    if (r.advisory.id.empty() || r.advisory.id.find(' ') != std::string::npos || r.raised_s < 0) __builtin_trap();
    const gpuwatch::AdvisoryChange change{gpuwatch::ChangeKind::Appeared, r.advisory, std::nullopt};
    const std::vector<gpuwatch::Event> again{
        {{0, 0}, std::nullopt, "advisory", gpuwatch::advisory_event_message(change)}};
    const auto back = gpuwatch::recorded_advisories(again, 1);
    if (back.size() != 1 || back[0].advisory.id != r.advisory.id ||
        back[0].advisory.device_index != r.advisory.device_index) {
      __builtin_trap();
    }
  }
  return 0;
}
