// Steps and logged scalars may come every iteration, hundreds a second; a
// 35-hour run must not store millions of them. At most one event per stream
// (steps; logs with the same names) is kept per spacing, the latest winning:
// a held-back one is stored once its spacing has passed, or at the end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

class AnnotationThrottle {
 public:
  explicit AnnotationThrottle(std::int64_t spacing_ns = 1'000'000'000) : spacing_ns_(spacing_ns) {}

  // Appends to `ready` what is to be stored now.
  void add(Event event, std::vector<Event>& ready);
  // Held-back events whose spacing has passed at `now_mono_ns`.
  void take_due(std::int64_t now_mono_ns, std::vector<Event>& ready);
  void take_all(std::vector<Event>& ready);

 private:
  struct Stream {
    std::optional<std::int64_t> last_stored_mono_ns;
    std::optional<Event> held;
  };
  std::int64_t spacing_ns_;
  std::map<std::string, Stream> streams_;
};

}  // namespace gpuwatch
