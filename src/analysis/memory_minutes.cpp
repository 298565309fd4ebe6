#include "analysis/memory_minutes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "core/time_weights.h"

namespace gpuwatch {
namespace {

// Time-weighted means and co-moment of (hours from the run's start, bytes),
// merged pairwise (Chan et al.): stable where the level dwarfs the trend.
struct TrendMoments {
  double weight = 0;
  double mean_t_h = 0;
  double mean_v = 0;
  double m2_t = 0;
  double c_tv = 0;

  void add(const TrendMoments& b) {
    if (b.weight <= 0) return;
    const double total = weight + b.weight;
    const double dt = b.mean_t_h - mean_t_h;
    const double dv = b.mean_v - mean_v;
    const double share = weight * b.weight / total;
    mean_t_h += dt * b.weight / total;
    mean_v += dv * b.weight / total;
    m2_t += b.m2_t + dt * dt * share;
    c_tv += b.c_tv + dt * dv * share;
    weight = total;
  }
};

// A stretch of the working span: a whole minute, or the part of an edge
// minute read at full resolution.
struct Piece {
  std::int64_t minute = 0;
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
  std::uint64_t samples = 0;
  double min_bytes = 0;
  double max_bytes = 0;
  TrendMoments moments;
};

Piece piece_of(const DetectorMinute& m) {
  const MemoryMinute& mem = *m.memory;
  Piece p{m.minute, mem.first_ns, mem.last_ns, mem.samples, mem.min_bytes, mem.max_bytes, {}};
  const double minute_start_s = static_cast<double>(m.minute * kRollupMinuteNs) / 1e9;
  p.moments = {mem.weight_s, (minute_start_s + mem.mean_t_s) / 3600, mem.mean_bytes, mem.m2_t / (3600.0 * 3600.0),
               mem.c_tv / 3600};
  return p;
}

Piece piece_of(std::int64_t minute, std::span<const std::int64_t> time_ns, std::span<const double> bytes,
               std::int64_t start_mono_ns) {
  Piece p{minute, time_ns.front(), time_ns.back(), time_ns.size(), bytes.front(), bytes.front(), {}};
  const std::vector<double> w = half_gap_weights_ns(time_ns);
  for (std::size_t i = 0; i < time_ns.size(); ++i) {
    p.min_bytes = std::min(p.min_bytes, bytes[i]);
    p.max_bytes = std::max(p.max_bytes, bytes[i]);
    const double w_s = w[i] > 0 ? w[i] / 1e9 : 1e-9;  // as time_weights_ns: a lone sample still counts
    TrendMoments one{w_s, static_cast<double>(time_ns[i] - start_mono_ns) / 3.6e12, bytes[i], 0, 0};
    p.moments.add(one);
  }
  return p;
}

// The weighted median of the memory's minutes in [first, last].
std::optional<double> memory_median(std::span<const ColumnRollup> memory, std::int64_t first, std::int64_t last) {
  std::vector<ColumnRollup> span;
  for (const ColumnRollup& r : memory) {
    if (r.minute >= first && r.minute <= last) span.push_back(r);
  }
  if (span.empty()) return std::nullopt;
  const ColumnRollup merged = merge_rollups(span);
  double seen = 0;
  for (const RollupBin& b : merged.histogram) {
    seen += b.weight_ns;
    if (seen >= merged.weight_ns / 2) return b.value;
  }
  return merged.max;
}

// run_report.cpp's working_span() on minutes: while busy, from the job's
// first sample at half its median level to its last above a twentieth of it.
struct Working {
  std::int64_t since_ns = std::numeric_limits<std::int64_t>::min();
  std::int64_t until_ns = std::numeric_limits<std::int64_t>::max();  // inclusive
  double taken_bytes = -std::numeric_limits<double>::infinity();
  double gone_bytes = -std::numeric_limits<double>::infinity();
};

Working working_levels(const MinuteDetectorInput& in, const std::optional<IdleGapReport>& idle) {
  Working w;
  if (!idle) return w;
  w.since_ns = idle->first_busy_ns;
  w.until_ns = idle->last_busy_ns;
  const auto minute_of = [&](std::int64_t t) { return (t - in.start_mono_ns) / kRollupMinuteNs; };
  if (const auto median = memory_median(in.memory, minute_of(w.since_ns), minute_of(w.until_ns))) {
    w.taken_bytes = *median / 2;
    w.gone_bytes = *median / 20;
  }
  return w;
}

// The working span's pieces: edge minutes read and cut at the sample where
// the span begins or ends, whole minutes between them.
std::vector<Piece> working_pieces(const MinuteDetectorInput& in, const Working& w) {
  std::vector<const DetectorMinute*> minutes;
  for (const DetectorMinute& m : in.minutes) {
    const std::int64_t begin_ns = in.start_mono_ns + m.minute * kRollupMinuteNs;
    if (m.memory && begin_ns + kRollupMinuteNs > w.since_ns && begin_ns <= w.until_ns) minutes.push_back(&m);
  }
  auto begin = minutes.begin();
  auto end = minutes.end();
  while (begin != end && (*begin)->memory->max_bytes < w.taken_bytes) ++begin;
  while (end != begin && (*(end - 1))->memory->max_bytes < w.gone_bytes) --end;
  std::vector<Piece> pieces;
  for (auto m = begin; m != end; ++m) pieces.push_back(piece_of(**m));
  if (!in.read_window) return pieces;
  // The edges at full resolution: a minute whose samples all fall outside is left out.
  const auto cut = [&](const Piece& p, bool head, bool tail) -> std::optional<Piece> {
    const std::int64_t from = std::max(in.start_mono_ns + p.minute * kRollupMinuteNs, w.since_ns);
    const std::int64_t to = w.until_ns == std::numeric_limits<std::int64_t>::max()
                                ? in.start_mono_ns + (p.minute + 1) * kRollupMinuteNs
                                : std::min(in.start_mono_ns + (p.minute + 1) * kRollupMinuteNs, w.until_ns + 1);
    const WindowSamples s = in.read_window(DeviceMetric::MemUsedBytes, from, to);
    std::size_t first = 0;
    std::size_t last = s.values.size();
    if (head) {
      while (first < last && s.values[first] < w.taken_bytes) ++first;
    }
    if (tail) {
      while (last > first && s.values[last - 1] < w.gone_bytes) --last;
    }
    if (first == last) return std::nullopt;
    const std::span<const std::int64_t> t(s.time_ns);
    const std::span<const double> v(s.values);
    return piece_of(p.minute, t.subspan(first, last - first), v.subspan(first, last - first), in.start_mono_ns);
  };
  while (!pieces.empty()) {
    const std::optional<Piece> head = cut(pieces.front(), true, pieces.size() == 1);
    if (head) {
      pieces.front() = *head;
      break;
    }
    pieces.erase(pieces.begin());
  }
  while (pieces.size() > 1) {
    const std::optional<Piece> tail = cut(pieces.back(), false, true);
    if (tail) {
      pieces.back() = *tail;
      break;
    }
    pieces.pop_back();
  }
  return pieces;
}

// The weighted mean of the first or last tenth (by time, as memory_trend():
// up to and from `edge_ns`): whole pieces inside it, and the samples on its
// side of the piece it cuts.
double tenth_mean(std::span<const Piece> pieces, const MinuteDetectorInput& in, bool first_tenth,
                  std::int64_t edge_ns) {
  TrendMoments tenth;
  for (const Piece& p : pieces) {
    if (first_tenth ? p.first_ns > edge_ns : p.last_ns < edge_ns) continue;
    const bool whole = first_tenth ? p.last_ns <= edge_ns : p.first_ns >= edge_ns;
    if (whole || !in.read_window) {
      tenth.add(p.moments);
      continue;
    }
    const std::int64_t since = first_tenth ? p.first_ns : edge_ns;
    const std::int64_t until = first_tenth ? edge_ns + 1 : p.last_ns + 1;
    const WindowSamples s = in.read_window(DeviceMetric::MemUsedBytes, since, until);
    if (!s.time_ns.empty()) tenth.add(piece_of(p.minute, s.time_ns, s.values, in.start_mono_ns).moments);
  }
  return tenth.weight > 0 ? tenth.mean_v : 0;
}

// Drops, from the windows where one is possible: a fall from the high of
// this piece or the one before (the drop window is 5 s) to this one's low
// that meets both thresholds. Each such piece is read with the one before.
std::vector<MemoryDrop> drops_in(std::span<const Piece> pieces, const MinuteDetectorInput& in,
                                 const MemoryTrendOptions& o) {
  std::vector<std::pair<std::int64_t, std::int64_t>> windows;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const bool adjacent = i > 0 && pieces[i - 1].minute + 1 == pieces[i].minute;
    const double high = std::max(pieces[i].max_bytes, adjacent ? pieces[i - 1].max_bytes : pieces[i].max_bytes);
    const double fall = high - pieces[i].min_bytes;
    if (fall < o.min_drop_bytes || fall < o.min_drop_fraction * high) continue;
    const std::int64_t since = adjacent ? pieces[i - 1].first_ns : pieces[i].first_ns;
    const std::int64_t until = pieces[i].last_ns + 1;
    if (!windows.empty() && windows.back().second >= since) {
      windows.back().second = until;
    } else {
      windows.emplace_back(since, until);
    }
  }
  std::vector<MemoryDrop> drops;
  for (const auto& [since, until] : windows) {
    const WindowSamples s = in.read_window(DeviceMetric::MemUsedBytes, since, until);
    for (const MemoryDrop& d : memory_drops(s.time_ns, s.values, o)) drops.push_back(d);
  }
  return drops;
}

}  // namespace

std::optional<MemoryTrend> memory_trend_from_minutes(const MinuteDetectorInput& in,
                                                     const std::optional<IdleGapReport>& idle) {
  const MemoryTrendOptions options;
  const std::vector<Piece> pieces = working_pieces(in, working_levels(in, idle));
  std::uint64_t n = 0;
  TrendMoments all;
  for (const Piece& p : pieces) {
    n += p.samples;
    all.add(p.moments);
  }
  if (n < 10) return std::nullopt;
  MemoryTrend t;
  const std::int64_t first_ns = pieces.front().first_ns;
  const std::int64_t last_ns = pieces.back().last_ns;
  t.span_s = static_cast<double>(last_ns - first_ns) / 1e9;
  t.slope_bytes_per_hour = all.m2_t > 0 ? all.c_tv / all.m2_t : 0;
  const std::int64_t tenth = (last_ns - first_ns) / 10;
  t.first_tenth_mean_bytes = tenth_mean(pieces, in, true, first_ns + tenth);
  t.last_tenth_mean_bytes = tenth_mean(pieces, in, false, last_ns - tenth);
  t.growth_bytes = t.last_tenth_mean_bytes - t.first_tenth_mean_bytes;
  const std::optional<double> total = in.total_memory_bytes;
  if (total && *total > 0) t.growth_percent_of_total = t.growth_bytes / *total * 100;
  const double reference = total && *total > 0 ? *total : t.first_tenth_mean_bytes;
  t.leak_suspected =
      reference > 0 && t.growth_bytes > options.leak_growth_fraction * reference && t.slope_bytes_per_hour > 0;
  if (in.read_window) t.drops = drops_in(pieces, in, options);
  return t;
}

}  // namespace gpuwatch
