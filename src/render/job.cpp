#include "render/job.h"

#include <fmt/format.h>

namespace gpuwatch {

namespace {

std::string of(const std::optional<int>& place, const std::optional<int>& size) {
  if (!place) return {};
  return size ? fmt::format("{} of {}", *place, *size) : fmt::format("{}", *place);
}

}  // namespace

std::string describe_job(const JobInfo& job) {
  if (job.empty()) return {};
  std::string out = job.id.empty() ? "no id" : job.id;
  if (!job.source.empty()) out += fmt::format(" ({})", job.source);
  std::string places;
  const auto add = [&places](std::string_view what, const std::string& value) {
    if (value.empty()) return;
    places += fmt::format("{}{} {}", places.empty() ? "" : ", ", what, value);
  };
  add("rank", of(job.rank, job.world_size));
  if (!job.rank && job.world_size) add("world size", fmt::format("{}", *job.world_size));
  add("local rank", of(job.local_rank, std::nullopt));
  add("node", of(job.node_rank, job.node_count));
  if (!job.node_rank && job.node_count) add("nodes", fmt::format("{}", *job.node_count));
  if (!places.empty()) out += ": " + places;
  return out;
}

void write_job_field(JsonWriter& w, const JobInfo& job) {
  w.key("job");
  if (job.empty()) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("id", job.id.empty() ? std::nullopt : std::optional(job.id));
  w.field("source", job.source.empty() ? std::nullopt : std::optional(job.source));
  w.field("rank", job.rank);
  w.field("local_rank", job.local_rank);
  w.field("world_size", job.world_size);
  w.field("node_rank", job.node_rank);
  w.field("node_count", job.node_count);
  w.end_object();
}

}  // namespace gpuwatch
