// How late each tick started relative to its deadline. Kept as a fixed
// log-scale histogram so a 35-hour run at 100 Hz costs no memory growth.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>

#include "core/sample.h"

namespace gpuwatch {

class JitterRecorder {
 public:
  void record_tick(std::int64_t late_ns);
  void record_missed(std::int64_t count);
  [[nodiscard]] JitterStats stats() const;

 private:
  static constexpr std::size_t kBins = 40;  // bin b holds [2^(b-1), 2^b) ns
  mutable std::mutex mutex_;
  std::array<std::int64_t, kBins> bins_{};
  std::int64_t ticks_ = 0;
  std::int64_t missed_ = 0;
  double sum_ns_ = 0;
  std::int64_t max_ns_ = 0;
};

}  // namespace gpuwatch
