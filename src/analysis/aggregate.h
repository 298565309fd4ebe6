// One line for several GPUs: the mean across devices at each sampling tick,
// as `plot --kind compare` draws a run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpuwatch {

struct TimedColumn {
  std::span<const std::int64_t> time_ns;  // sorted
  std::span<const double> values;         // NaN: not read on that tick
};

// At each tick, the mean of every series' latest value that is at most
// max_age_ns old (a slow metric keeps its last read between reads; a series
// that stopped, such as a lost GPU, drops out). Samples of different series
// less than tick_tolerance_ns apart make one tick, so GPUs sampled together
// give one point, not one per GPU: a tick starts at the earliest time not yet
// in one and takes every time up to tick_tolerance_ns after it. A tick with no
// fresh value is NaN. O(samples × series); appends to the outputs after
// clearing them.
void mean_across(std::span<const TimedColumn> series, std::int64_t tick_tolerance_ns, std::int64_t max_age_ns,
                 std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values);

// mean_across() fed one series at a time, so that a long run's GPUs need not
// all be in memory at once: it keeps the ticks and a sum and a count per tick.
//
// A series is counted on the ticks of every time added so far. When its own
// times leave those ticks as they were (the recorder samples every GPU on
// the same ticks), or only add ticks before or after all of them (a GPU lost
// early, one that joined late), the result is exactly mean_across()'s. When
// they would move ticks that earlier series were counted on, add() returns
// false: call restart() and add every series again, in the same order; the
// times are kept, so the second round is exact.
class MeanAcross {
 public:
  MeanAcross(std::int64_t tick_tolerance_ns, std::int64_t max_age_ns)
      : tolerance_ns_(tick_tolerance_ns), max_age_ns_(max_age_ns) {}

  // Returns false when the result is no longer exact (see above); the times
  // are taken in all the same.
  bool add(const TimedColumn& series);
  // Forgets the sums, keeps the ticks of every time added.
  void restart();
  // Whether every add() since the start or the last restart() returned true.
  [[nodiscard]] bool complete() const { return complete_; }
  // mean_across()'s output for the series added.
  void result(std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values) const;

 private:
  // The last finite value of a series counted, and when it was read: what it
  // contributes to ticks appended after all its times.
  struct Last {
    double value = 0;
    std::int64_t time_ns = 0;
  };

  [[nodiscard]] bool fresh(std::int64_t tick_ns, std::int64_t read_ns) const;
  // Takes the series' times into the ticks; false when that moved a tick.
  bool take_times(std::span<const std::int64_t> time_ns);
  void count(const TimedColumn& series, std::size_t n);

  std::int64_t tolerance_ns_;
  std::int64_t max_age_ns_;
  std::vector<std::int64_t> times_;  // every distinct time added, ascending
  std::vector<std::int64_t> ticks_;
  std::vector<double> sums_;
  std::vector<std::uint32_t> counts_;
  std::vector<std::optional<Last>> last_;  // per series counted, in order
  bool complete_ = true;
};

}  // namespace gpuwatch
