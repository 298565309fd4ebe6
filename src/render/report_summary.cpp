// The short summary `record` prints at its end (render/report.h).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/run_verdict.h"
#include "render/document.h"
#include "render/report.h"
#include "render/step_timing.h"
#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// Lines under the verdict that say what is wrong: advisories first, in the
// advisor's order, then what the whole-run report found that no advisory says.
struct Item {
  Severity severity;
  std::string label;  // "util.low GPU 0": what the verdict names
  std::string text;   // what was seen
};

struct Finding {
  std::string_view family;  // advisories whose id starts with this say the same
  std::optional<int> device;
  Item item;
};

// Throttled for less than this share of the run is worth a line in the full
// report, not in the summary.
constexpr double kThrottledPercent = 10;

bool said_by_advisory(std::span<const Advisory> advisories, const Finding& f) {
  return std::any_of(advisories.begin(), advisories.end(), [&](const Advisory& a) {
    return a.id.starts_with(f.family) && (!f.device || !a.device_index || a.device_index == f.device);
  });
}

// The report's detectors over the whole run, for what the advisor (over its
// last window) may not have seen.
std::vector<Finding> findings(const RunReport& r) {
  std::vector<Finding> out;
  const auto add = [&](std::string_view family, std::optional<int> gpu, Severity severity, std::string label,
                       std::string text) {
    out.push_back({family, gpu, {severity, std::move(label), std::move(text)}});
  };
  for (const DeviceReport& d : r.devices) {
    const int gpu = d.info.index;
    if (d.lost_at_wall_ns) {
      add("lost", gpu, Severity::Critical, fmt::format("GPU {} lost", gpu), "it stopped answering during the run");
    }
    if (const auto& t = d.throttle; t && t->throttled_percent >= kThrottledPercent) {
      add("throttle.", gpu, Severity::Warning, fmt::format("throttling GPU {}", gpu),
          fmt::format("throttled {} % of the time (power {} %, thermal {} %)", fixed(t->throttled_percent, 1),
                      fixed(t->power_percent, 1), fixed(t->thermal_percent, 1)));
    }
    if (const auto& p = d.pcie_link; p && p->degraded_busy_s > 0) {
      add("pcie.", gpu, Severity::Warning, fmt::format("PCIe link GPU {}", gpu),
          fmt::format("below gen {} x{} for {} % of busy time", p->max_gen, p->max_width,
                      fixed(p->degraded_percent, 1)));
    }
    if (d.memory && d.memory->leak_suspected) {
      add("memory.", gpu, Severity::Warning, fmt::format("memory growth GPU {}", gpu),
          fmt::format("grew by {} over the run: a leak is possible", human_bytes(d.memory->growth_bytes)));
    }
    if (const auto& g = d.idle_gaps; g && g->regular && g->typical_period_s) {
      add("util.", gpu, Severity::Warning, fmt::format("idle gaps GPU {}", gpu),
          fmt::format("idle every {} ({} gaps, {} in total): a loop waiting for its input",
                      human_duration(*g->typical_period_s), g->count, human_duration(g->total_s)));
    }
  }
  for (const BalanceReport& b : r.balance) {
    if (b.metric == DeviceMetric::GpuUtilPercent && b.balance.band == BalanceBand::Poor) {
      add("balance.", std::nullopt, Severity::Warning, "utilization balance",
          fmt::format("unbalanced across {} GPUs (CV {} %)", b.per_gpu_mean.size(), fixed(b.balance.cv_percent, 1)));
    }
  }
  return out;
}

std::string label_of(const Advisory& a) { return to_string(AdvisoryRef{a.id, a.device_index}); }

std::vector<Item> items(const RunReport& r, std::span<const Advisory> advisories) {
  std::vector<Item> out;
  for (const Advisory& a : advisories) {
    out.push_back({a.severity, label_of(a), a.summary});
  }
  for (Finding& f : findings(r)) {
    if (!said_by_advisory(advisories, f)) out.push_back(std::move(f.item));
  }
  std::stable_sort(out.begin(), out.end(), [](const Item& a, const Item& b) { return a.severity > b.severity; });
  return out;
}

bool failed(const RunInfo& run) {
  return run.status == RunStatus::Interrupted || run.exit_signal || (run.exit_code && *run.exit_code != 0) ||
         run.end_reason == "underuse" || run.end_reason == "hung";
}

// The run's verdict word (analysis/run_verdict.h: "ok" when nothing is to
// act on, the same word `status` gives) with the advisory it names first,
// after the outcome when the command failed.
std::string verdict(const RunInfo& run, std::span<const Advisory> advisories, bool notes) {
  std::vector<std::string> problems;
  if (failed(run)) problems.push_back(describe_outcome(run));
  if (!advisories.empty()) {
    const std::vector<Advisory> all(advisories.begin(), advisories.end());
    problems.push_back(fmt::format("{}: {}", verdict_word(all), label_of(advisories.front())));
  }
  if (problems.empty()) return notes ? "ok (notes below)" : "ok";
  std::string s;
  for (const std::string& p : problems) s += (s.empty() ? "" : "; ") + p;
  return s;
}

std::optional<double> memory_total(const DeviceReport& d) {
  if (auto v = d.info.static_values.get(DeviceMetric::MemTotalBytes); v && *v > 0) return v;
  if (const Summary* s = d.find(DeviceMetric::MemTotalBytes); s && s->max > 0) return s->max;
  return std::nullopt;
}

// The summary's numbers: the catalogue's units and scales (core/metrics.h),
// rounded for a glance: whole percent and watts, memory to 0.1 GiB.
constexpr DisplayFormat kUtilShown = rounded(info(DeviceMetric::GpuUtilPercent).display, 0);
constexpr DisplayFormat kPowerShown = rounded(info(DeviceMetric::PowerWatts).display, 0);
constexpr DisplayFormat kMemoryShown = rounded(info(DeviceMetric::MemUsedBytes).display, 1);

// The GPU table's header: its metrics' words from the catalogue, the memory
// column without a unit (its cells say "63.5 of 79.6 GiB (80 %)").
std::vector<std::string> gpu_header() {
  return {"GPU", "name", column_title(info(DeviceMetric::GpuUtilPercent), "mean"),
          fmt::format("{} peak", info(DeviceMetric::MemUsedBytes).short_label),
          column_title(info(DeviceMetric::PowerWatts), "mean")};
}

std::string memory_peak(std::optional<double> peak, std::optional<double> total) {
  if (!peak) return "-";
  if (!total) return display_text(kMemoryShown, *peak);
  return fmt::format("{} of {} ({} %)", display_value(kMemoryShown, *peak), display_text(kMemoryShown, *total),
                     fixed(*peak / *total * 100, 0));
}

std::optional<double> mean_of(const DeviceReport& d, DeviceMetric m) {
  const Summary* s = d.find(m);
  return s ? std::optional<double>(s->mean) : std::nullopt;
}

std::string or_dash(std::optional<double> v, const DisplayFormat& format) {
  return v ? display_value(format, *v) : "-";
}

std::vector<std::string> gpu_row(const DeviceReport& d) {
  const Summary* used = d.find(DeviceMetric::MemUsedBytes);
  return {std::to_string(d.info.index), shorten(d.info.name, 28) + (d.lost_at_wall_ns ? " LOST" : ""),
          or_dash(mean_of(d, DeviceMetric::GpuUtilPercent), kUtilShown),
          memory_peak(used ? std::optional<double>(used->max) : std::nullopt, memory_total(d)),
          or_dash(mean_of(d, DeviceMetric::PowerWatts), kPowerShown)};
}

// Beyond kSummaryGpuRows GPUs: one row for all of them (mean utilization,
// highest peak, summed power), then the least used ones, where a problem
// most likely is.
void add_gpus(Document& doc, const RunReport& r) {
  if (r.devices.empty()) {
    doc.line("no GPU was recorded");
    return;
  }
  TextTable t;
  t.header = gpu_header();
  t.first_numeric_column = 2;
  if (r.devices.size() <= kSummaryGpuRows) {
    for (const DeviceReport& d : r.devices) t.rows.push_back(gpu_row(d));
    doc.table(std::move(t));
    return;
  }
  double util_sum = 0;
  std::size_t util_n = 0;
  std::optional<double> power;
  const DeviceReport* fullest = nullptr;
  for (const DeviceReport& d : r.devices) {
    if (auto u = mean_of(d, DeviceMetric::GpuUtilPercent)) {
      util_sum += *u;
      ++util_n;
    }
    if (auto p = mean_of(d, DeviceMetric::PowerWatts)) power = power.value_or(0) + *p;
    const Summary* used = d.find(DeviceMetric::MemUsedBytes);
    if (used && (!fullest || used->max > fullest->find(DeviceMetric::MemUsedBytes)->max)) fullest = &d;
  }
  const auto max_used = [](const DeviceReport* d) {
    return d ? std::optional<double>(d->find(DeviceMetric::MemUsedBytes)->max) : std::nullopt;
  };
  t.rows.push_back({"all", fmt::format("{} GPUs (power: sum)", r.devices.size()),
                    util_n ? display_value(kUtilShown, util_sum / static_cast<double>(util_n)) : "-",
                    memory_peak(max_used(fullest), fullest ? memory_total(*fullest) : std::nullopt) +
                        (fullest ? fmt::format(" on GPU {}", fullest->info.index) : ""),
                    or_dash(power, kPowerShown)});
  std::vector<const DeviceReport*> least;
  for (const DeviceReport& d : r.devices) least.push_back(&d);
  std::stable_sort(least.begin(), least.end(), [](const DeviceReport* a, const DeviceReport* b) {
    return mean_of(*a, DeviceMetric::GpuUtilPercent).value_or(-1) < mean_of(*b, DeviceMetric::GpuUtilPercent).value_or(-1);
  });
  least.resize(std::min(least.size(), kSummaryLeastUsedRows));
  for (const DeviceReport* d : least) t.rows.push_back(gpu_row(*d));
  doc.table(std::move(t));
  doc.line(fmt::format("  (the {} least used of {} GPUs; the full report has each)", least.size(), r.devices.size()));
}

std::string energy(double joules) {
  const std::string j = joules >= 1e6   ? fixed(joules / 1e6, 2) + " MJ"
                        : joules >= 1e3 ? fixed(joules / 1e3, 1) + " kJ"
                                        : fixed(joules, 1) + " J";
  return fmt::format("{} ({} Wh)", j, fixed(joules / 3600, joules >= 36e3 ? 1 : 3));
}

std::string training_line(const TrainingSummary& t) {
  std::vector<std::string> parts;
  if (t.last_step) parts.push_back(fmt::format("last step {}", *t.last_step));
  if (t.epochs > 0) parts.push_back(fmt::format("{} epoch{}", t.epochs, t.epochs == 1 ? "" : "s"));
  if (t.model_params) parts.push_back(fmt::format("model {} parameters", human_count(*t.model_params)));
  if (t.step_timing) parts.push_back(step_timing_line(*t.step_timing));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "training: " : ", ") + p;
  return s;
}

// Continuation lines of a folded line start this much further in.
constexpr std::string_view kFoldIndent = "    ";

// A line of prose; with `columns` (0: none), folded at spaces into lines of
// at most that many, the continuation lines indented under its start: a
// narrow terminal would otherwise break it mid-word at its edge. Tables are
// left whole: folding would undo their columns.
void add_prose(Document& doc, const std::string& text, std::size_t columns) {
  if (columns == 0 || display_width(text) <= columns) {
    doc.line(text);
    return;
  }
  const std::string folded = wrap_text(text, columns, "", kFoldIndent);
  for (std::size_t pos = 0; pos < folded.size();) {
    const std::size_t end = std::min(folded.find('\n', pos), folded.size());
    doc.line(folded.substr(pos, end - pos));
    pos = end + 1;
  }
}

}  // namespace

std::string render_report_summary(const RunReport& r, std::span<const Advisory> advisories, std::size_t wrap_columns) {
  const RunInfo& run = r.run;
  const std::vector<Item> found = items(r, advisories);
  Document doc;
  doc.title(fmt::format("Run {}  {}  {} after {}", run.id, run.name.empty() ? "-" : run.name, describe_outcome(run),
                        human_duration(r.wall_duration_s)));
  add_prose(doc, "verdict: " + verdict(run, advisories, !found.empty()), wrap_columns);
  add_gpus(doc, r);
  // Only when some recorded GPU was not the job's: then the reader must know.
  if (std::any_of(r.devices.begin(), r.devices.end(),
                  [&](const DeviceReport& d) { return r.job_gpus.known() && !r.job_gpus.contains(d.info.index); })) {
    std::vector<int> recorded;
    for (const DeviceReport& d : r.devices) recorded.push_back(d.info.index);
    add_prose(doc, "job GPUs: " + describe_job_gpus(r.job_gpus, run, recorded), wrap_columns);
  }
  if (r.total_energy_joules) doc.line("energy: " + energy(*r.total_energy_joules));
  if (r.training) {
    if (std::string t = training_line(*r.training); !t.empty()) add_prose(doc, t, wrap_columns);
  }
  for (std::size_t i = 0; i < found.size() && i < kSummaryItems; ++i) {
    // One line each, shortened at a word: the full text is a command away.
    // On a terminal whose width is known, whole and folded instead.
    const std::string head = fmt::format("[{}] {}: ", to_string(found[i].severity), found[i].label);
    add_prose(doc,
              head + (wrap_columns > 0 ? found[i].text
                                       : shorten(found[i].text, kSummaryWidth - std::min(kSummaryWidth / 2, display_width(head)))),
              wrap_columns);
  }
  if (found.size() > kSummaryItems) {
    doc.line(fmt::format("... and {} more (the advisories in full: gpuwatch status {})", found.size() - kSummaryItems,
                         run.id));
  }
  doc.line(fmt::format("full report: gpuwatch report {}", run.id));
  return doc.to_text();
}

}  // namespace gpuwatch
