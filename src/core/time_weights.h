// The weight of each sample in every time-weighted statistic: half the gap to
// each neighbour, each half capped. Shared by analysis (summaries, detectors)
// and the store (per-minute rollups), so that a statistic read from rollups
// weighs every sample exactly as one computed from the samples does.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpuwatch {

// The cap of a half gap when the caller gives none: 1.5 x the median gap
// between `time_ns` (times ascending), at least 1 ns.
std::int64_t default_half_gap_cap_ns(std::span<const std::int64_t> time_ns);

// Whole nanoseconds: half of each gap (integer division) to each neighbour,
// each half capped at `max_half_gap_ns` (zero: the default cap above). All
// zero for fewer than two samples. Integer halves keep regular sampling's
// weights, and every sum of them below 2^53 ns (104 days), exact in a double.
std::vector<double> half_gap_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0);

// default_half_gap_cap_ns of a column too long to hold (the recorder's
// finish over a run of weeks), found exactly in a few passes over its times,
// each counting gaps in a histogram of at most 64 Ki buckets: the first by
// magnitude (11 significant bits), each later one over the range the median
// was left in, 16 bits narrower. Gaps of regular sampling need two passes;
// any int64 gaps at most five.
class MedianGapFinder {
 public:
  // Every time of the column, in the column's order, once per pass.
  void add(std::int64_t time_ns);
  // Ends a pass; true once the median is known (then half_gap_cap_ns()).
  bool end_pass();
  [[nodiscard]] bool done() const { return done_; }
  [[nodiscard]] std::int64_t half_gap_cap_ns() const;

 private:
  [[nodiscard]] std::size_t bucket_of(std::int64_t gap_ns) const;
  void narrow_after_first_pass();
  void narrow_after_linear_pass();

  bool first_pass_ = true;
  bool done_ = false;
  bool has_prev_ = false;
  std::int64_t prev_ns_ = 0;
  std::uint64_t gaps_ = 0;           // counted in the first pass
  std::uint64_t negative_gaps_ = 0;  // times that go back (first pass)
  std::int64_t min_gap_ns_ = 0;
  // Linear passes: the median lies in [lo, hi]; `below` gaps are smaller.
  std::int64_t lo_ns_ = 0;
  std::int64_t hi_ns_ = 0;
  std::uint64_t below_ = 0;
  std::uint64_t bucket_width_ns_ = 1;
  std::vector<std::uint64_t> counts_;
  std::int64_t median_ns_ = 0;
};

}  // namespace gpuwatch
