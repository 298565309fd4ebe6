#include "analysis/advisor/advisory.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwatch {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Critical: return "critical";
  }
  return "unknown";
}

std::string to_string(const AdvisoryRef& ref) {
  return ref.device_index ? fmt::format("{} GPU {}", ref.id, *ref.device_index) : ref.id;
}

std::string_view to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::Appeared: return "appeared";
    case ChangeKind::SeverityChanged: return "severity_changed";
    case ChangeKind::Cleared: return "cleared";
  }
  return "unknown";
}

namespace {

const Advisory* find_same(std::span<const Advisory> list, const Advisory& a) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const Advisory& b) {
    return b.id == a.id && b.device_index == a.device_index;
  });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

std::vector<AdvisoryChange> diff_advisories(std::span<const Advisory> previous, std::span<const Advisory> current) {
  std::vector<AdvisoryChange> changes;
  for (const Advisory& now : current) {
    const Advisory* before = find_same(previous, now);
    if (!before) {
      changes.push_back({ChangeKind::Appeared, now, std::nullopt});
    } else if (before->severity != now.severity) {
      changes.push_back({ChangeKind::SeverityChanged, now, before->severity});
    }
  }
  for (const Advisory& before : previous) {
    if (!find_same(current, before)) changes.push_back({ChangeKind::Cleared, before, std::nullopt});
  }
  return changes;
}

}  // namespace gpuwatch
