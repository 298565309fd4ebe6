#include "analysis/job_gpus.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpuwatch {

namespace {

constexpr JobGpuSource kSources[] = {JobGpuSource::VisibleDevices, JobGpuSource::ProcessTree,
                                     JobGpuSource::CommandNotSeen};

// "1,3" → {1, 3}; "" → {}. Indices are small non-negative numbers, listed
// once each.
std::optional<std::vector<int>> parse_indices(std::string_view text) {
  std::vector<int> out;
  if (text.empty()) return out;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    int v = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < 0 || v > 4095 ||
        std::find(out.begin(), out.end(), v) != out.end()) {
      return std::nullopt;
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "CUDA_VISIBLE_DEVICES,HIP_VISIBLE_DEVICES": environment variable names
// (capitals, digits, underscores), at least one.
std::optional<std::vector<std::string>> parse_variable_names(std::string_view text) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    const bool valid = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!valid) return std::nullopt;
    out.emplace_back(name);
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string_view to_string(JobGpuSource s) {
  switch (s) {
    case JobGpuSource::Unknown: return "unknown";
    case JobGpuSource::VisibleDevices: return "cuda_visible_devices";
    case JobGpuSource::ProcessTree: return "process_tree";
    case JobGpuSource::CommandNotSeen: return "command_not_seen";
  }
  return "unknown";
}

bool JobGpus::contains(int index) const { return std::find(gpus.begin(), gpus.end(), index) != gpus.end(); }

std::string job_gpus_message(const JobGpus& job) {
  std::string message = fmt::format("source={} gpus={}", to_string(job.source), fmt::join(job.gpus, ","));
  if (!job.variables.empty()) message += fmt::format(" variables={}", fmt::join(job.variables, ","));
  return message;
}

std::optional<JobGpus> parse_job_gpus_message(std::string_view message) {
  constexpr std::string_view kSource = "source=";
  constexpr std::string_view kGpus = " gpus=";
  constexpr std::string_view kVariables = " variables=";
  if (!message.starts_with(kSource)) return std::nullopt;
  message.remove_prefix(kSource.size());
  const auto gap = message.find(kGpus);
  if (gap == std::string_view::npos) return std::nullopt;
  const std::string_view source = message.substr(0, gap);
  JobGpus job;
  const auto* s = std::find_if(std::begin(kSources), std::end(kSources),
                               [&](JobGpuSource k) { return to_string(k) == source; });
  if (s == std::end(kSources)) return std::nullopt;
  job.source = *s;
  std::string_view rest = message.substr(gap + kGpus.size());
  const auto variables_at = rest.find(kVariables);
  auto gpus = parse_indices(rest.substr(0, variables_at));
  if (!gpus) return std::nullopt;
  job.gpus = std::move(*gpus);
  if (variables_at != std::string_view::npos) {
    auto variables = parse_variable_names(rest.substr(variables_at + kVariables.size()));
    if (!variables) return std::nullopt;
    job.variables = std::move(*variables);
  } else if (job.source == JobGpuSource::VisibleDevices) {
    job.variables = {"CUDA_VISIBLE_DEVICES"};  // recorded when it was the only one read
  }
  return job;
}

JobGpus job_gpus_from_events(std::span<const Event> events) {
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->kind != kJobGpusEventKind) continue;
    if (auto job = parse_job_gpus_message(it->message)) return *job;
  }
  return {};
}

JobGpuTracker::JobGpuTracker(JobGpus initial, std::vector<int> recorded)
    : current_(std::move(initial)), recorded_(std::move(recorded)) {
  std::sort(current_.gpus.begin(), current_.gpus.end());
}

bool JobGpuTracker::observe(std::span<const GpuProcess> processes) {
  if (current_.source != JobGpuSource::CommandNotSeen && current_.source != JobGpuSource::ProcessTree) return false;
  bool changed = false;
  for (const GpuProcess& p : processes) {
    if (!p.in_tree || std::find(recorded_.begin(), recorded_.end(), p.device_index) == recorded_.end()) continue;
    if (current_.source == JobGpuSource::CommandNotSeen) {
      current_ = {JobGpuSource::ProcessTree, {}};
      changed = true;
    }
    if (!current_.contains(p.device_index)) {
      current_.gpus.insert(std::upper_bound(current_.gpus.begin(), current_.gpus.end(), p.device_index),
                           p.device_index);
      changed = true;
    }
  }
  return changed;
}

}  // namespace gpuwatch
