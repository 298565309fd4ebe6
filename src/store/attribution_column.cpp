#include "store/attribution_column.h"

#include <array>

namespace gpuwatch {
namespace {

constexpr std::string_view kFormat = "1";

// The fields in column order; the order is the stored format.
std::array<std::string*, 9> attribution_fields(ProcessAttribution& a) {
  return {&a.job, &a.step, &a.array_job, &a.array_task, &a.container, &a.runtime, &a.pod_uid, &a.qos, &a.unit};
}

}  // namespace

std::optional<std::string> attribution_column(const ProcessAttribution& a) {
  if (a.empty()) return std::nullopt;
  ProcessAttribution copy = a;
  std::string out(kFormat);
  for (const std::string* field : attribution_fields(copy)) {
    out += '\t';
    out += *field;
  }
  return out;
}

ProcessAttribution attribution_from_column(std::string_view text) {
  ProcessAttribution out;
  const auto tab = text.find('\t');
  if (text.substr(0, tab) != kFormat || tab == std::string_view::npos) return out;
  text.remove_prefix(tab + 1);
  for (std::string* field : attribution_fields(out)) {
    const auto end = text.find('\t');
    *field = std::string(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace gpuwatch
