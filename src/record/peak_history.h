// `record --advise`'s memory of the whole run, for the epoch-leak rule
// (epoch_peaks(): each completed epoch's peak memory per GPU), in bounded
// memory whatever the run's length (issue 25).
//
// It keeps one point per GPU per second (that second's peak) only for the
// recent span; before it, the seconds between two epoch boundaries are
// folded into one point holding their peak. epoch_peaks() takes the peak of
// the points inside an epoch, so it gives the same peaks as from every
// second's point, as long as an epoch event arrives within the recent span
// of its time (they arrive about a second late, with the store's commits).
// What stays: one point per GPU per epoch boundary, plus the recent span's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/run.h"

namespace gpuwatch {

class PeakHistory {
 public:
  PeakHistory(const RunInfo& run, const std::vector<DeviceInfo>& devices);

  void add_sample(const DeviceSample& sample);
  // An "epoch" event; one that repeats the previous label is not kept (it
  // changes no epoch: segments_from_events ignores it).
  void add_epoch(const Event& event);
  // Folds the points before `before_mono_ns` (the start of the recent span)
  // into one per GPU per stretch between epoch boundaries.
  void fold_before(std::int64_t before_mono_ns);

  // The whole run so far: per-second (or folded) memory peaks and epoch events.
  [[nodiscard]] const RunData& data() const { return history_; }
  // Memory points kept over all GPUs: what bounds this object's size.
  [[nodiscard]] std::size_t point_count() const;

 private:
  [[nodiscard]] std::vector<std::int64_t> epoch_boundaries_ns() const;

  RunData history_;
};

}  // namespace gpuwatch
