#include "render/prometheus/prometheus_processes.h"

#include <algorithm>
#include <map>

#include "render/prometheus/prometheus_write.h"

namespace gpuwatch {

std::string command_label(std::string_view command) {
  std::string out;
  for (const char c : command) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  if (out.size() <= kMaxCommandLabelBytes) return out;
  std::size_t cut = kMaxCommandLabelBytes;
  // Back to the first byte of a character: continuation bytes are 10xxxxxx.
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out;
}

namespace {

// The owner's labels only where known: an empty label is no label to
// Prometheus, and leaving it out keeps the page short. One owner per
// process, so they add no series. "slurm_job", not "job": Prometheus sets
// "job" on every scraped series (the scrape job's name) and would rename
// ours to "exported_job".
prometheus_text::PromLabels process_labels(int gpu, const GpuProcess& p, const std::string& hostname) {
  prometheus_text::PromLabels labels{
      {"gpu", std::to_string(gpu)}, {"pid", std::to_string(p.pid)}, {"command", command_label(p.name)}};
  const ProcessAttribution& a = p.attribution;
  if (const std::string job = slurm_job_text(a); !job.empty()) labels.emplace_back("slurm_job", job);
  if (!a.container.empty()) labels.emplace_back("container", std::string(short_container_id(a.container)));
  if (!a.pod_uid.empty()) labels.emplace_back("pod_uid", a.pod_uid);
  labels.emplace_back("hostname", hostname);
  return labels;
}

}  // namespace

void append_process_families(std::string& out, const std::vector<GpuProcess>& processes,
                             const std::vector<int>& watched, const std::string& hostname) {
  using namespace prometheus_text;
  std::map<int, std::vector<const GpuProcess*>> by_gpu;
  for (const int gpu : watched) by_gpu[gpu];
  for (const GpuProcess& p : processes) {
    if (const auto it = by_gpu.find(p.device_index); it != by_gpu.end()) it->second.push_back(&p);
  }
  family_header(out, "gpuwatch_gpu_processes", "Processes using the GPU, whether or not each has a series", false);
  for (const auto& [gpu, list] : by_gpu) {
    write_sample(out, "gpuwatch_gpu_processes", {{"gpu", std::to_string(gpu)}, {"hostname", hostname}},
                 static_cast<double>(list.size()));
  }
  struct Row {
    PromLabels labels;
    const GpuProcess* process;
  };
  std::vector<Row> rows;
  for (auto& [gpu, list] : by_gpu) {
    // Most memory first; the pid decides between equals, so the cut is stable.
    std::sort(list.begin(), list.end(), [](const GpuProcess* a, const GpuProcess* b) {
      const auto ma = a->used_memory_bytes.value_or(0);
      const auto mb = b->used_memory_bytes.value_or(0);
      return ma != mb ? ma > mb : a->pid < b->pid;
    });
    if (list.size() > kMaxProcessSeriesPerGpu) list.resize(kMaxProcessSeriesPerGpu);
    for (const GpuProcess* p : list) rows.push_back({process_labels(gpu, *p, hostname), p});
  }
  const auto family = [&](std::string_view name, std::string_view help, auto value) {
    std::string body;
    for (const Row& r : rows) {
      if (const std::optional<double> v = value(*r.process)) write_sample(body, name, r.labels, *v);
    }
    if (body.empty()) return;
    family_header(out, name, help, false);
    out += body;
  };
  family("gpuwatch_process_memory_used_bytes",
         metric_help(info(ProcessMetric::UsedMemoryBytes), {}, "where the driver tells it"),
         [](const GpuProcess& p) {
           return p.used_memory_bytes ? std::optional<double>(static_cast<double>(*p.used_memory_bytes))
                                      : std::nullopt;
         });
  family("gpuwatch_process_gpu_utilization_ratio",
         metric_help(info(ProcessMetric::GpuPercent), "0-1",
                     "its share since the previous read, where the driver tells it"),
         [](const GpuProcess& p) { return p.gpu_percent ? std::optional<double>(*p.gpu_percent / 100) : std::nullopt; });
}

}  // namespace gpuwatch
