#include "analysis/run_group.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/run_report.h"
#include "analysis/stats.h"

namespace gpuwatch {

namespace {

constexpr GroupColumnInfo column(DerivedMetric m, Better better) { return {m, info(m).name, info(m).unit, better}; }

constexpr GroupColumnInfo kColumns[kGroupColumnCount] = {
    column(DerivedMetric::DurationSeconds, Better::Lower),
    column(DerivedMetric::GpuUtilMeanPercent, Better::Higher),
    column(DerivedMetric::MemUsedMeanBytes, Better::Lower),
    column(DerivedMetric::MemUsedPeakBytes, Better::Lower),
    column(DerivedMetric::PowerMeanWatts, Better::Neither),
    column(DerivedMetric::EnergyJoules, Better::Lower),
};

std::size_t index(GroupColumn c) { return static_cast<std::size_t>(c); }

std::optional<Summary> summary_of(const RunData& data, RunMetric metric) {
  const ElapsedSeries series = run_metric_series(data, metric);
  return summarize(series.elapsed_ns, series.values);
}

}  // namespace

Spread spread_of(std::span<const double> xs) {
  Spread s;
  s.n = xs.size();
  s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  s.std = std::sqrt(sample_variance(xs));
  return s;
}

const GroupColumnInfo& info(GroupColumn c) { return kColumns[index(c)]; }

bool run_completed(const RunInfo& run) {
  // Stopped by --on-underuse kill or --on-hang kill, even where the command exited 0 on SIGTERM.
  if (run.status != RunStatus::Finished || run.exit_signal || run.end_reason == "underuse" ||
      run.end_reason == "hung") {
    return false;
  }
  return !run.exit_code || *run.exit_code == 0;
}

GroupValues group_values(const RunData& data) { return group_values(data, build_report(data)); }

GroupValues group_values(const RunData& data, const RunReport& report) {
  GroupValues v;
  // Duration and energy as `report` computes them, so the two never disagree.
  v[index(GroupColumn::DurationS)] = report.wall_duration_s;
  v[index(GroupColumn::EnergyJoules)] = report.total_energy_joules;
  if (auto s = summary_of(data, RunMetric::GpuUtilPercent)) v[index(GroupColumn::GpuUtilPercent)] = s->mean;
  if (auto s = summary_of(data, RunMetric::MemUsedBytes)) {
    v[index(GroupColumn::MemUsedMean)] = s->mean;
    v[index(GroupColumn::MemUsedPeak)] = s->max;
  }
  if (auto s = summary_of(data, RunMetric::PowerWatts)) v[index(GroupColumn::PowerWatts)] = s->mean;
  return v;
}

RunGroup build_completed_run_group(std::span<const RunData> runs, std::string selection) {
  std::vector<GroupRow> rows;
  for (const RunData& data : runs) {
    rows.push_back({data.run, run_completed(data.run) ? group_values(data) : GroupValues{}});
  }
  return build_completed_run_group(std::move(rows), std::move(selection));
}

RunGroup build_completed_run_group(std::vector<GroupRow> rows, std::string selection) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const GroupRow& a, const GroupRow& b) { return a.run.start_wall_ns < b.run.start_wall_ns; });
  std::vector<GroupRow> completed;
  std::vector<RunInfo> left_out;
  for (GroupRow& row : rows) {
    if (run_completed(row.run)) {
      completed.push_back(std::move(row));
    } else {
      left_out.push_back(std::move(row.run));
    }
  }
  RunGroup g = build_run_group(std::move(completed), std::move(selection));
  g.left_out = std::move(left_out);
  return g;
}

RunGroup build_run_group(std::vector<GroupRow> rows, std::string selection) {
  RunGroup g;
  g.selection = std::move(selection);
  g.rows = std::move(rows);
  std::stable_sort(g.rows.begin(), g.rows.end(),
                   [](const GroupRow& a, const GroupRow& b) { return a.run.start_wall_ns < b.run.start_wall_ns; });

  for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
    std::optional<GroupExtremes> e;
    std::size_t with_value = 0;
    for (std::size_t r = 0; r < g.rows.size(); ++r) {
      const auto& v = g.rows[r].values[c];
      if (!v) continue;
      ++with_value;
      if (!e) {
        e = GroupExtremes{static_cast<GroupColumn>(c), r, r};
        continue;
      }
      if (*v < *g.rows[e->lowest].values[c]) e->lowest = r;
      if (*v > *g.rows[e->highest].values[c]) e->highest = r;
    }
    if (e && with_value >= 2) g.extremes.push_back(*e);
  }

  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    const std::string& name = g.rows[r].run.name;
    if (name.empty()) continue;  // unnamed runs are no configuration
    auto it = std::find_if(g.repeats.begin(), g.repeats.end(), [&](const Configuration& c) { return c.name == name; });
    if (it == g.repeats.end()) it = g.repeats.insert(g.repeats.end(), Configuration{name, {}, {}});
    it->rows.push_back(r);
  }
  std::erase_if(g.repeats, [](const Configuration& c) { return c.rows.size() < 2; });
  for (Configuration& config : g.repeats) {
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      std::vector<double> xs;
      for (std::size_t r : config.rows) {
        if (const auto& v = g.rows[r].values[c]) xs.push_back(*v);
      }
      if (!xs.empty()) config.values[c] = spread_of(xs);
    }
  }
  return g;
}

}  // namespace gpuwatch
