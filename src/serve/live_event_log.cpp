#include "serve/live_event_log.h"

#include <algorithm>

namespace gpuwatch {

std::vector<const Event*> SentEvents::unsent(std::span<const Event> events, std::int64_t until_mono_ns) {
  std::vector<const Event*> out;
  for (const Event& e : events) {
    const std::int64_t t = e.time.mono_ns;
    if (t <= floor_ns_ || t > until_mono_ns) continue;
    if (sent_.emplace(t, e.kind, e.message, e.device_index.value_or(-1)).second) out.push_back(&e);
  }
  std::stable_sort(out.begin(), out.end(), [](const Event* a, const Event* b) { return a->time.mono_ns < b->time.mono_ns; });
  // What can no longer arrive late is forgotten: the set stays a minute or two long.
  const std::int64_t floor = until_mono_ns - kLateNs;
  if (floor > floor_ns_) {
    floor_ns_ = floor;
    sent_.erase(sent_.begin(), sent_.lower_bound(Key{floor_ns_ + 1, {}, {}, -2}));
  }
  return out;
}

}  // namespace gpuwatch
