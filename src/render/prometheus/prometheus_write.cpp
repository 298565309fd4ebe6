#include "render/prometheus/prometheus_write.h"

#include <iterator>

#include <fmt/format.h>

#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {

namespace prometheus_text {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  unsigned min = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  unsigned cp = lead & (0x7FU >> n);
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0U) != 0x80U) return 0;
    cp = cp << 6 | (b(i) & 0x3FU);
  }
  const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  return cp >= min && cp <= 0x10FFFF && !surrogate ? n : 0;
}

// Backslash and newline escaped, and double quotes in a label value (HELP
// text keeps them). Bytes that are not UTF-8 become U+FFFD: Prometheus drops
// a whole scrape over one invalid label value, and a process may be named
// anything.
std::string escaped(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n > 1) {
      out += text.substr(i, n);
      i += n;
      continue;
    }
    const char c = text[i++];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace
}  // namespace prometheus_text

std::string prometheus_label_value(std::string_view value) { return prometheus_text::escaped(value, true); }

namespace prometheus_text {

std::string prometheus_help_text(std::string_view text) { return escaped(text, false); }

std::string metric_help(const MetricInfo& metric, std::string_view unit, std::string_view note) {
  return fmt::format("{} ({}{}{})", metric.label, unit.empty() ? metric.unit : unit, note.empty() ? "" : ", ", note);
}

std::string prometheus_number(double value) { return fmt::format("{}", value); }

void family_header(std::string& out, std::string_view name, std::string_view help, bool counter) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, prometheus_help_text(help), name,
                 counter ? "counter" : "gauge");
}

void write_sample(std::string& out, std::string_view name, const PromLabels& labels, double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      fmt::format_to(std::back_inserter(out), "{}=\"{}\"", labels[i].first, prometheus_label_value(labels[i].second));
    }
    out += '}';
  }
  out += ' ';
  out += prometheus_number(value);
  out += '\n';
}

}  // namespace prometheus_text
}  // namespace gpuwatch
