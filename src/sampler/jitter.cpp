#include "sampler/jitter.h"

#include <algorithm>
#include <bit>

namespace gpuwatch {

void JitterRecorder::record_tick(std::int64_t late_ns) {
  late_ns = std::max<std::int64_t>(late_ns, 0);
  const auto bin = std::min<std::size_t>(
      static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(late_ns))), kBins - 1);
  std::lock_guard lock(mutex_);
  ++bins_[bin];
  ++ticks_;
  sum_ns_ += static_cast<double>(late_ns);
  max_ns_ = std::max(max_ns_, late_ns);
}

void JitterRecorder::record_missed(std::int64_t count) {
  std::lock_guard lock(mutex_);
  missed_ += count;
}

JitterStats JitterRecorder::stats() const {
  std::lock_guard lock(mutex_);
  JitterStats s;
  s.ticks = ticks_;
  s.missed_deadlines = missed_;
  if (ticks_ == 0) return s;
  s.mean_late_ns = sum_ns_ / static_cast<double>(ticks_);
  s.max_late_ns = static_cast<double>(max_ns_);
  const auto want = static_cast<std::int64_t>(static_cast<double>(ticks_) * 0.99);
  std::int64_t seen = 0;
  for (std::size_t b = 0; b < kBins; ++b) {
    seen += bins_[b];
    if (seen > want || b == kBins - 1) {
      const double upper = b == 0 ? 0.0 : static_cast<double>(std::uint64_t{1} << b);
      s.p99_late_ns = std::min(upper, s.max_late_ns);
      break;
    }
  }
  return s;
}

}  // namespace gpuwatch
