// What the command line hands gpuwatch, on arbitrary bytes: the words of a
// recorded command (NUL-separated, as in /proc/PID/cmdline) for the default
// run name, the time flags (--since, --older-than), the typo suggester and
// the display width of names. None may crash; their promises are checked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/suggest.h"
#include "core/text_width.h"
#include "record/run_name.h"
#include "store/run_filter.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> argv;
  for (std::size_t pos = 0; pos <= text.size() && argv.size() < 64;) {
    const std::size_t nul = std::min(text.find('\0', pos), text.size());
    argv.emplace_back(text.substr(pos, nul - pos));
    pos = nul + 1;
  }
  const std::string name = gpuwatch::default_run_name(argv);
  if (name.size() > 64 || (!argv.empty() && name.empty())) __builtin_trap();

  if (auto d = gpuwatch::parse_duration_ns(text); d && *d <= 0) __builtin_trap();
  (void)gpuwatch::parse_time_bound_ns(text, 1'800'000'000'000'000'000);

  const std::vector<std::string> candidates(argv.begin() + (argv.size() > 1 ? 1 : 0), argv.end());
  if (auto best = gpuwatch::closest_match(argv.front(), candidates)) {
    if (std::find(candidates.begin(), candidates.end(), *best) == candidates.end()) __builtin_trap();
  }

  const std::size_t width = gpuwatch::display_width(text);
  if (width > 2 * text.size()) __builtin_trap();
  const std::string_view cut = gpuwatch::prefix_fitting(text, width / 2);
  if (gpuwatch::display_width(cut) > width / 2 || text.substr(0, cut.size()) != cut) __builtin_trap();
  return 0;
}
