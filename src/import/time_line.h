// The time points of an import and the rules that turn them into the run's
// clock (run_builder.h says what a time point is). The points live in a
// SpillFile, 16 bytes each, with two bits each in memory; the rules need
// medians over every point, found in a few passes over the spill
// (streaming_median), so that the memory stays the same whatever the size
// of the file.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "import/import_notes.h"
#include "import/spill.h"

namespace gpuwatch {

// The median of the values `for_each(f)` passes to f, as nth_element finds
// it (the value at position n/2 of them sorted), in passes over them that
// hold a 16-bit histogram; `for_each` must pass the same values each time.
// nullopt when there are none.
template <typename ForEach>
std::optional<std::int64_t> streaming_median(const ForEach& for_each) {
  std::uint64_t n = 0;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for_each([&](std::int64_t v) {
    ++n;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  });
  if (n == 0) return std::nullopt;
  // Offsets from the lowest value, found 16 bits at a time from the top:
  // clustered values (times a few ms apart) need one or two passes.
  const auto offset = [lo](std::int64_t v) { return static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(lo); };
  std::uint64_t rank = n / 2;
  std::uint64_t found = 0;  // the offset's bits above `bits_left`
  int bits_left = std::bit_width(offset(hi));
  std::vector<std::uint64_t> histogram;
  while (bits_left > 0) {
    const int step = std::min(bits_left, 16);
    const int shift = bits_left - step;
    histogram.assign(std::size_t{1} << step, 0);
    for_each([&](std::int64_t v) {
      const std::uint64_t o = offset(v);
      if ((bits_left == 64 ? 0 : o >> bits_left) == found) ++histogram[(o >> shift) & ((std::uint64_t{1} << step) - 1)];
    });
    std::size_t bucket = 0;
    while (rank >= histogram[bucket]) rank -= histogram[bucket++];
    found = (found << step) | bucket;
    bits_left = shift;
  }
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + found);
}

class TimeLine {
 public:
  explicit TimeLine(SpillFile file) : file_(std::move(file)) {}

  // A new point; elapsed_s is absent, or in [0, kMaxRunSeconds].
  std::size_t add(std::int64_t wall_ns, std::optional<double> elapsed_s);
  [[nodiscard]] std::size_t size() const { return alive_.size(); }
  [[nodiscard]] bool alive(std::size_t i) const { return alive_[i]; }

  struct Point {
    std::int64_t wall_ns;
    double elapsed_s;  // NaN: absent
    [[nodiscard]] bool has_elapsed() const { return !std::isnan(elapsed_s); }
    [[nodiscard]] std::int64_t elapsed_ns() const { return std::llround(elapsed_s * 1e9); }
  };
  // f(index, point) for every point still alive, in order.
  template <typename F>
  void for_each_alive(const F& f);
  // Points for which keep(index, point) is false stop being alive; each was
  // one record read, now counted as dropped for `reason`.
  template <typename Keep>
  void drop_unless(const Keep& keep, std::string_view reason, ImportNotes& notes);
  // Every point's wall time becomes start_ns + its elapsed seconds (CSV,
  // whose timestamps are cut to the millisecond); every point has them.
  void set_walls_from_elapsed(std::int64_t start_ns) { walls_from_ = start_ns; }

  // The rules, in this order (docs/import.md, "Times"). First the points
  // whose time cannot be right: where every point has elapsed seconds, those
  // whose timestamp disagrees with the run's start plus their elapsed
  // seconds by more than kMaxClockDisagreementNs; otherwise those more than
  // kMaxRunSeconds from the median timestamp.
  void drop_implausible(ImportNotes& notes);
  // Then monotonic time: the elapsed seconds where every point has them,
  // else the steps between wall times in file order (a step backwards
  // counting as the median step); the points more than kMaxRunSeconds after
  // the first, then those whose wall time disagrees with the run's clock by
  // more than a day, are dropped; the start is the median wall − monotonic.
  void settle(ImportNotes& notes);

  // After settle(): the run's wall start and its last monotonic time.
  [[nodiscard]] std::optional<std::int64_t> start_wall_ns() const { return start_wall_ns_; }
  [[nodiscard]] std::int64_t last_mono_ns() const { return last_mono_ns_; }
  // Whether monotonic time is the elapsed seconds: then a point's monotonic
  // time can be read alone (mono_at), and only then can rows be out of order.
  [[nodiscard]] bool mono_from_elapsed() const { return from_elapsed_; }
  // (monotonic, wall) of point i; only where mono_from_elapsed().
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> times_at(std::size_t i);

  // After settle(): monotonic and wall times of points in increasing order
  // of index, read as one pass over the spill.
  class Cursor {
   public:
    explicit Cursor(TimeLine& line) : line_(line), in_(line.file_) {}
    // (monotonic, wall) of point i, alive, not before the last one asked.
    std::pair<std::int64_t, std::int64_t> at(std::size_t i);

   private:
    TimeLine& line_;
    SpillFile::Reader in_;
    std::size_t next_ = 0;  // index of the next point to read
    std::int64_t mono_ = 0;
    std::int64_t wall_ = 0;
    std::optional<std::int64_t> previous_wall_;
  };

 private:
  [[nodiscard]] std::int64_t wall_of(const Point& p) const;
  // The monotonic time after `previous_mono` for a step from previous_wall to wall.
  [[nodiscard]] std::int64_t next_mono(std::int64_t previous_mono, std::int64_t previous_wall, std::int64_t wall) const;
  // f(index, wall, mono) for every point alive, in order (after the step is known).
  template <typename F>
  void for_each_mono(const F& f);
  void drop_inconsistent(ImportNotes& notes);

  SpillFile file_;
  std::vector<bool> alive_;
  std::vector<bool> in_clock_;  // alive when monotonic time was decided: the points it steps over
  std::optional<std::int64_t> walls_from_;
  bool from_elapsed_ = false;
  std::int64_t step_ns_ = 0;  // a backwards step of the wall clock counts as this
  std::optional<std::int64_t> start_wall_ns_;
  std::int64_t last_mono_ns_ = 0;
};

template <typename F>
void TimeLine::for_each_alive(const F& f) {
  SpillFile::Reader in(file_);
  Point p{};
  for (std::size_t i = 0; i < alive_.size() && spill_get(in, p); ++i) {
    if (!alive_[i]) continue;
    p.wall_ns = wall_of(p);
    f(i, p);
  }
}

template <typename Keep>
void TimeLine::drop_unless(const Keep& keep, std::string_view reason, ImportNotes& notes) {
  std::size_t n = 0;
  for_each_alive([&](std::size_t i, const Point& p) {
    if (keep(i, p)) return;
    alive_[i] = false;  // for_each_alive has read point i already
    ++n;
  });
  if (n) notes.unread(reason, n);
}

template <typename F>
void TimeLine::for_each_mono(const F& f) {
  Cursor cursor(*this);
  for_each_alive([&](std::size_t i, const Point&) {
    const auto [mono, wall] = cursor.at(i);
    f(i, wall, mono);
  });
}

}  // namespace gpuwatch
