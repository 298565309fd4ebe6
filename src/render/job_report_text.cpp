#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "core/metrics.h"
#include "render/job_report.h"
#include "render/run_group_tables.h"
#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

using run_group_tables::column_cell;
using run_group_tables::column_header;

constexpr GroupColumn kJobRunColumns[] = {GroupColumn::DurationS,   GroupColumn::GpuUtilPercent,
                                       GroupColumn::MemUsedMean, GroupColumn::MemUsedPeak,
                                       GroupColumn::PowerWatts,  GroupColumn::EnergyJoules};

std::string rank_cell(const RunInfo& run) { return run.job.rank ? fmt::format("{}", *run.job.rank) : "-"; }

std::string rate_cell(const std::optional<double>& steps_per_s) {
  return steps_per_s ? fmt::format("{:.3g}", *steps_per_s) : "n/a";
}

std::string metric_cell(DeviceMetric m, const std::optional<double>& v) {
  return v ? display_value(info(m).display, *v) : "n/a";
}

std::string heading(const JobReport& j) {
  return fmt::format("Job {}: {} run{} on {} node{}, {} GPU{}, {} from the first start to the last end", j.job_id,
                     j.runs.size(), j.runs.size() == 1 ? "" : "s", j.nodes.size(), j.nodes.size() == 1 ? "" : "s",
                     j.gpus, j.gpus == 1 ? "" : "s", j.span_s ? human_duration(*j.span_s) : "n/a");
}

Table runs_table(const JobReport& j) {
  Table t;
  t.gap = 1;
  t.columns = {{"host", false, true, 8}, {"rank", true}, {"run"}, {"gpus", true}};
  for (GroupColumn c : kJobRunColumns) t.columns.push_back({column_header(c), true});
  t.columns.push_back({"steps/s", true});
  for (const JobRun& r : j.runs) {
    std::vector<std::string> row{r.run.host.empty() ? "-" : r.run.host, rank_cell(r.run), r.run.id,
                                 fmt::format("{}", r.gpus.size())};
    for (GroupColumn c : kJobRunColumns) row.push_back(column_cell(c, r.values[static_cast<std::size_t>(c)]));
    row.push_back(rate_cell(r.steps_per_s));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table gpus_table(const JobReport& j) {
  Table t;
  t.columns = {{"host", false, true, 8}, {"rank", true}, {"gpu", true}, {"name", false, true, 10},
               {column_title(info(DerivedMetric::GpuUtilMeanPercent)), true},
               {column_title(fmt::format("{} {}", info(DerivedMetric::MemUsedMeanBytes).short_label,
                                         info(DerivedMetric::MemUsedPeakBytes).short_label),
                             info(DerivedMetric::MemUsedPeakBytes).display),
                true}};
  for (const JobRun& r : j.runs) {
    for (const JobGpu& g : r.gpus) {
      t.rows.push_back({r.run.host.empty() ? "-" : r.run.host, rank_cell(r.run), fmt::format("{}", g.index), g.name,
                        metric_cell(DeviceMetric::GpuUtilPercent, g.util_mean),
                        metric_cell(DeviceMetric::MemUsedBytes, g.mem_used_peak)});
    }
  }
  return t;
}

Table nodes_table(const JobReport& j) {
  Table t;
  t.columns = {{"node", false, true, 8}, {"runs", true}, {"gpus", true},
               {column_header(GroupColumn::GpuUtilPercent), true}, {column_header(GroupColumn::PowerWatts), true},
               {column_header(GroupColumn::EnergyJoules), true}, {"steps/s", true}, {"note"}};
  for (std::size_t i = 0; i < j.nodes.size(); ++i) {
    const JobNode& n = j.nodes[i];
    t.rows.push_back({n.host.empty() ? "-" : n.host, fmt::format("{}", n.runs.size()), fmt::format("{}", n.gpus),
                      column_cell(GroupColumn::GpuUtilPercent, n.util_mean),
                      column_cell(GroupColumn::PowerWatts, n.power_watts),
                      column_cell(GroupColumn::EnergyJoules, n.energy_joules), rate_cell(n.steps_per_s),
                      j.straggler && j.straggler->node == i ? "straggler" : ""});
  }
  return t;
}

std::string balance_line(const JobReport& j) {
  if (!j.node_balance) return "Load balance across nodes: needs two nodes or more with a GPU utilization.";
  return fmt::format("Load balance across nodes: CV of the nodes' mean GPU utilization {:.1f} % ({}; bands: < 5 % "
                     "excellent, 5-10 good, 10-20 fair, >= 20 poor).",
                     j.node_balance->cv_percent, to_string(j.node_balance->band));
}

std::string straggler_line(const JobReport& j) {
  return fmt::format("Straggler: {}. Rule: {}.", j.straggler ? j.nodes[j.straggler->node].host : "none named",
                     j.straggler_reason);
}

// The columns' words are the catalogue's (core/derived_metrics.h).
std::string job_legend() {
  const auto word = [](DerivedMetric m) { return info(m).short_label; };
  return fmt::format("Per run: {} is the time-weighted mean over its GPUs; {}, {} and {} are sums over its GPUs. "
                     "Per node: {} weighted by its runs' durations, steps/s its slowest run's (from step annotations).",
                     word(DerivedMetric::GpuUtilMeanPercent), word(DerivedMetric::MemUsedMeanBytes),
                     word(DerivedMetric::PowerMeanWatts), word(DerivedMetric::EnergyJoules),
                     word(DerivedMetric::GpuUtilMeanPercent));
}

}  // namespace

std::string render_job_report_text(const JobReport& j) {
  std::string out = wrap_text(heading(j), kTextReportWidth, "", "");
  out += "\nRuns\n";
  out += render_text_table(runs_table(j), kTextReportWidth, "  ");
  out += "\nGPUs\n";
  out += render_text_table(gpus_table(j), kTextReportWidth, "  ");
  out += "\nNodes\n";
  // Without a note, a row ends in the gap before it: no trailing blanks.
  const std::string nodes = render_text_table(nodes_table(j), kTextReportWidth, "  ");
  for (std::string_view rest = nodes; !rest.empty();) {
    const std::size_t eol = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, eol);
    out.append(line.substr(0, line.find_last_not_of(' ') + 1)).append("\n");
    rest.remove_prefix(std::min(eol + 1, rest.size()));
  }
  out.append("\n").append(wrap_text(balance_line(j), kTextReportWidth, "", "  "));
  out += wrap_text(straggler_line(j), kTextReportWidth, "", "  ");
  out.append("\n").append(wrap_text(job_legend(), kTextReportWidth, "", ""));
  return out;
}

std::string render_job_report_markdown(const JobReport& j) {
  std::string out = "## " + heading(j) + "\n\n### Runs\n\n";
  out += render_markdown_table(runs_table(j));
  out += "\n### GPUs\n\n";
  out += render_markdown_table(gpus_table(j));
  out += "\n### Nodes\n\n";
  out += render_markdown_table(nodes_table(j));
  out.append("\n").append(balance_line(j)).append("\n\n").append(straggler_line(j)).append("\n\n");
  out.append(job_legend()).append("\n");
  return out;
}

std::string render_job_report(const JobReport& job, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return render_job_report_json(job);
    case OutputFormat::markdown: return render_job_report_markdown(job);
    default: return render_job_report_text(job);
  }
}

}  // namespace gpuwatch
