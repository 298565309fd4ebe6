#include "analysis/step_timing.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/training.h"
#include "core/step_timing.h"

namespace gpuwatch {

namespace {

struct Parsed {
  std::optional<double> wait_s;
  std::optional<double> step_s;
  std::optional<double> steps;
};

// Nullopt for a message that is not step timing, or cannot be used.
std::optional<StepTimingMessage> read_message(const Event& e, bool& timing) {
  timing = false;
  if (e.kind != "log") return std::nullopt;
  Parsed p;
  for (const auto& [name, v] : parse_log_message(e.message)) {
    if (name == kDataWaitLogName) p.wait_s = v;
    if (name == kStepTimeLogName) p.step_s = v;
    if (name == kTimedStepsLogName) p.steps = v;
  }
  timing = p.wait_s || p.step_s || p.steps;
  if (!p.wait_s || !p.step_s || !p.steps) return std::nullopt;
  // Not finite never gets here: parse_log_message() drops it.
  if (*p.wait_s < 0 || *p.step_s <= 0 || *p.steps < 1 || *p.steps != std::floor(*p.steps)) return std::nullopt;
  return StepTimingMessage{e.time.mono_ns, *p.wait_s, *p.step_s, *p.steps};
}

bool finite_sums(const StepTiming& t, const StepTimingMessage& m) {
  return std::isfinite(t.step_time_s + m.step_time_s) && std::isfinite(t.steps + m.steps);
}

}  // namespace

std::optional<double> StepTiming::data_wait_percent() const {
  if (!(step_time_s > 0)) return std::nullopt;
  return std::min(data_wait_s / step_time_s, 1.0) * 100;
}

std::optional<double> StepTiming::mean_step_s() const {
  if (!(steps >= 1)) return std::nullopt;
  return step_time_s / steps;
}

void StepTiming::add(const StepTimingMessage& m) {
  data_wait_s += std::min(m.data_wait_s, m.step_time_s);
  step_time_s += m.step_time_s;
  steps += m.steps;
  ++messages;
  if (m.data_wait_s > m.step_time_s) ++clamped;
}

void StepTiming::add(const StepTiming& other) {
  data_wait_s += other.data_wait_s;
  step_time_s += other.step_time_s;
  steps += other.steps;
  messages += other.messages;
  clamped += other.clamped;
}

std::vector<StepTimingMessage> step_timing_messages(std::span<const Event> events, std::size_t* skipped) {
  std::vector<StepTimingMessage> out;
  std::size_t bad = 0;
  StepTiming total;  // only to refuse a message that would overflow the run's sums
  for (const Event& e : events) {
    bool timing = false;
    const auto m = read_message(e, timing);
    if (!m || !finite_sums(total, *m)) {
      bad += timing ? 1 : 0;
      continue;
    }
    total.add(*m);
    out.push_back(*m);
  }
  // Stored events are in time order; an imported file need not be.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mono_ns < b.mono_ns; });
  if (skipped) *skipped = bad;
  return out;
}

std::optional<StepTiming> sum_step_timing(std::span<const StepTimingMessage> messages, std::int64_t begin_ns,
                                          std::int64_t end_ns) {
  const auto by_time = [](const StepTimingMessage& m, std::int64_t t) { return m.mono_ns < t; };
  auto it = std::lower_bound(messages.begin(), messages.end(), begin_ns, by_time);
  StepTiming t;
  for (; it != messages.end() && it->mono_ns < end_ns; ++it) t.add(*it);
  if (t.messages == 0) return std::nullopt;
  return t;
}

std::optional<StepTiming> total_step_timing(std::span<const StepTimingMessage> messages) {
  return sum_step_timing(messages, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace gpuwatch
