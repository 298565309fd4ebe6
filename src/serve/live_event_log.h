// Which of a recording run's events a live stream has sent. Each poll reads
// the run's events whole; annotations may be stored late and out of order
// (a client's mono_ns places one up to a minute in the past), so "after the
// last one sent" would lose some: the stream remembers what it sent within
// that minute instead, and sends what it has not.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

class SentEvents {
 public:
  // Events at or before `floor_mono_ns` count as sent: the page read them
  // with the run (/api/runs/ID).
  explicit SentEvents(std::int64_t floor_mono_ns) : floor_ns_(floor_mono_ns) {}

  // The events of `events` up to `until_mono_ns` not sent yet, in time order,
  // now counted as sent. Point into `events`.
  std::vector<const Event*> unsent(std::span<const Event> events, std::int64_t until_mono_ns);

  // How far back an annotation may be placed (docs/annotations.md: a
  // mono_ns older than a minute is not believed), with a margin.
  static constexpr std::int64_t kLateNs = 120'000'000'000;

 private:
  using Key = std::tuple<std::int64_t, std::string, std::string, int>;
  std::int64_t floor_ns_;  // every event at or before it was sent
  std::set<Key> sent_;     // those sent after floor_ns_
};

}  // namespace gpuwatch
