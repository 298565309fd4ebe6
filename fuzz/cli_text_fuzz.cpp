// What the command line hands gpuwatch, on arbitrary bytes: the words of a
// recorded command (NUL-separated, as in /proc/PID/cmdline) for the default
// run name, the time flags (--since, --older-than), the typo suggester and
// the display width of names, and names shown on a terminal (render/
// terminal_text.h: nothing a terminal acts on gets through). None may crash;
// their promises are checked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/suggest.h"
#include "core/text_width.h"
#include "core/utf8.h"
#include "record/run_name.h"
#include "render/terminal_text.h"
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

  // Shown escaped: valid UTF-8 with no control (but the line breaks kept
  // by the _lines form), and escaping it again changes nothing.
  const auto safe_shown = [](std::string_view shown, bool lines) {
    for (std::size_t i = 0; i < shown.size();) {
      const std::size_t n = gpuwatch::utf8_sequence_length(shown, i);
      if (n == 0) return false;
      const char32_t cp = n == 1 ? static_cast<unsigned char>(shown[i]) : gpuwatch::utf8_decode(shown, i, n);
      if (gpuwatch::is_unsafe_on_terminal(cp) && !(lines && cp == '\n')) return false;
      i += n;
    }
    return true;
  };
  const std::string safe = gpuwatch::terminal_safe(text);
  const std::string safe_lines = gpuwatch::terminal_safe_lines(text);
  if (!safe_shown(safe, false) || !safe_shown(safe_lines, true) || gpuwatch::terminal_safe(safe) != safe) {
    __builtin_trap();
  }
  if (std::count(safe_lines.begin(), safe_lines.end(), '\n') != std::count(text.begin(), text.end(), '\n')) {
    __builtin_trap();
  }

  const std::size_t width = gpuwatch::display_width(text);
  if (width > 2 * text.size()) __builtin_trap();
  const std::string_view cut = gpuwatch::prefix_fitting(text, width / 2);
  if (gpuwatch::display_width(cut) > width / 2 || text.substr(0, cut.size()) != cut) __builtin_trap();
  return 0;
}
