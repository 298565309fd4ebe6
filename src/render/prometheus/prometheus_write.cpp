#include "render/prometheus/prometheus_write.h"

#include <iterator>

#include <fmt/format.h>

#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {

namespace prometheus_text {
namespace {

// Backslash and newline escaped, and double quotes in a label value (HELP
// text keeps them).
std::string escaped(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
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
