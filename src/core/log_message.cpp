#include "core/log_message.h"

#include <charconv>
#include <cmath>

namespace gpuwatch {

std::optional<double> parse_finite_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::pair<std::string_view, double>> parse_log_message(std::string_view message) {
  std::vector<std::pair<std::string_view, double>> out;
  while (!message.empty()) {
    const std::size_t space = message.find(' ');
    const std::string_view pair = message.substr(0, space);
    message = space == std::string_view::npos ? std::string_view() : message.substr(space + 1);
    const std::size_t eq = pair.find('=');
    if (eq == 0 || eq == std::string_view::npos) continue;
    if (const auto v = parse_finite_number(pair.substr(eq + 1))) out.emplace_back(pair.substr(0, eq), *v);
  }
  return out;
}

}  // namespace gpuwatch
