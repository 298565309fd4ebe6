#include "analysis/advisor/underuse_rules.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

bool matches(std::string_view pattern, std::string_view id) {
  if (pattern == "*") return true;
  if (pattern.ends_with(".*")) return id.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == id;
}

std::string known_ids() {
  std::string out;
  for (std::string_view id : kUnderuseAdvisoryIds) out += (out.empty() ? "" : ", ") + std::string(id);
  return out;
}

}  // namespace

UnderuseRules::UnderuseRules() : patterns_{"util.*"} {}

UnderuseRules UnderuseRules::parse(std::string_view list) {
  UnderuseRules rules;
  rules.patterns_.clear();
  while (true) {
    const auto comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) throw UnderuseRulesError("an empty entry in the list of rules");
    const bool known = std::any_of(kUnderuseAdvisoryIds.begin(), kUnderuseAdvisoryIds.end(),
                                   [&](std::string_view id) { return matches(item, id); });
    if (!known) {
      throw UnderuseRulesError(fmt::format("'{}' names no underuse advisory; these can act: {} (or a prefix such as util.*)",
                                           item, known_ids()));
    }
    rules.patterns_.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return rules;
}

bool UnderuseRules::acts_on(std::string_view id) const {
  return std::any_of(patterns_.begin(), patterns_.end(), [&](const std::string& p) { return matches(p, id); });
}

bool UnderuseRules::acts_on(const Advisory& a) const { return a.underuse && acts_on(a.id); }

std::string UnderuseRules::to_string() const {
  std::string out;
  for (const std::string& p : patterns_) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<const Advisory*> acting_underuse(const std::vector<Advisory>& current, const UnderuseRules& rules,
                                             const JobGpus& job, const std::vector<int>& recorded_gpus) {
  std::vector<const Advisory*> acting;
  for (const Advisory& a : current) {
    if (rules.acts_on(a)) acting.push_back(&a);
  }
  const bool command_seen = job.source == JobGpuSource::ProcessTree || job.source == JobGpuSource::VisibleDevices;
  if (!command_seen && !acting.empty()) {
    const bool job_wide = std::any_of(acting.begin(), acting.end(), [](const Advisory* a) { return !a->device_index; });
    const std::vector<int>& candidates = job.gpus.empty() ? recorded_gpus : job.gpus;
    const bool every_gpu_low = !candidates.empty() && std::all_of(candidates.begin(), candidates.end(), [&](int gpu) {
      return std::any_of(acting.begin(), acting.end(), [&](const Advisory* a) { return a->device_index == gpu; });
    });
    if (!job_wide && !every_gpu_low) acting.clear();
  }
  std::stable_partition(acting.begin(), acting.end(), [](const Advisory* a) { return a->id.starts_with("util."); });
  return acting;
}

}  // namespace gpuwatch
