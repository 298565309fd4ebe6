#include "cli/number_flags.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/whole_number.h"

namespace gpuwatch::cli {

namespace {

// 86400, not 86400.000000; 0.01, not 1.000000e-02.
std::string shown(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string bounds(const NumberRule& rule) {
  if (rule.max) return fmt::format(" between {} and {}", shown(rule.min), shown(*rule.max));
  return fmt::format(", {} or more", shown(rule.min));
}

std::string expected(const NumberRule& rule) {
  std::string what = rule.what;
  if (rule.whole) what = what.starts_with("a ") ? what + " (a whole number)" : "a whole number of " + what;
  return "expected " + what + bounds(rule) + (rule.example.empty() ? "" : " (e.g. " + rule.example + ")");
}

// The number the whole of `text` spells, finite; nullopt for anything else
// ("abc", "1e999", "nan", "5 s").
std::optional<double> parse_number(const NumberRule& rule, std::string_view text) {
  if (rule.whole) {
    const auto v = parse_whole_number<long long>(text);
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::string number_problem(const NumberRule& rule, std::string_view text) {
  const auto v = parse_number(rule, text);
  if (v && *v >= rule.min && (!rule.max || *v <= *rule.max)) return {};
  // Cut: the message stays one line whatever was typed.
  constexpr std::size_t kShownBytes = 32;
  const std::string typed = text.size() > kShownBytes ? std::string(text.substr(0, kShownBytes)) + "..." : std::string(text);
  return fmt::format("{}, got '{}'", expected(rule), typed);
}

CLI::Validator number_check(const NumberRule& rule) {
  const std::string description =
      rule.max ? fmt::format("[{} - {}]", shown(rule.min), shown(*rule.max)) : fmt::format(">= {}", shown(rule.min));
  return CLI::Validator([rule](std::string& text) { return number_problem(rule, text); }, description);
}

}  // namespace gpuwatch::cli
