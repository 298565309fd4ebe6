#include "core/sample.h"

#include <ctime>

namespace gpuwatch {

namespace {
std::int64_t read_clock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

Timestamp now() { return {read_clock(CLOCK_MONOTONIC), read_clock(CLOCK_REALTIME)}; }

}  // namespace gpuwatch
