// Steps and logged scalars may come every iteration, hundreds a second; a
// 35-hour run must not store millions of them. At most one event per stream
// (steps; logs with the same names) is kept per spacing, the latest winning:
// a held-back one is stored once its spacing has passed, or at the end.
//
// Marks are kept as they come up to a burst, then at most one per spacing,
// and never more than a run's worth: a pattern without named groups turns
// every matching line into a mark, and 200,000 of them cost 33 MB of store
// and a report nobody can read. The first ones are kept (a mark usually says
// something started); what was dropped is counted and stored at the end as
// one "marks_dropped" event.
//
// Logged scalars are throttled per set of names, and the sets are bounded:
// a job that logs under ever new names (a message, an id in the name) would
// otherwise bypass the spacing (issue 22: 107,946 such events stored, a
// 3.5 s run's report took 7 s). Beyond kMaxLogStreams sets, messages with a
// new set are dropped and counted, stored at the end as one "logs_dropped"
// event.
//
// Step timing (core/step_timing.h) is a sum over the steps each message
// covers, not a latest value: a held-back timing message that a newer one
// replaces is added into it, and an epoch or phase that begins stores the
// held one first, so every step is counted once, in its own epoch.
//
// An epoch or phase that repeats the one before (a pattern matching every
// line of epoch 3 says "epoch 3" on each) is the same epoch: not stored again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

inline constexpr std::size_t kMarkBurst = 100;
inline constexpr std::size_t kMaxStoredMarks = 10'000;
inline constexpr std::size_t kMaxLogStreams = 64;

class AnnotationThrottle {
 public:
  explicit AnnotationThrottle(std::int64_t spacing_ns = 1'000'000'000) : spacing_ns_(spacing_ns) {}

  // Appends to `ready` what is to be stored now.
  void add(Event event, std::vector<Event>& ready);
  // Held-back events whose spacing has passed at `now_mono_ns`.
  void take_due(std::int64_t now_mono_ns, std::vector<Event>& ready);
  // Everything held back, and the count of dropped marks if any.
  void take_all(std::vector<Event>& ready);

  [[nodiscard]] std::size_t dropped_marks() const { return dropped_marks_; }
  [[nodiscard]] std::size_t dropped_logs() const { return dropped_logs_; }

 private:
  struct Stream {
    std::optional<std::int64_t> last_stored_mono_ns;
    std::optional<Event> held;
  };
  bool admit_mark(std::int64_t mono_ns);
  void release_step_timing(std::vector<Event>& ready);

  std::int64_t spacing_ns_;
  std::map<std::string, Stream> streams_;
  std::size_t log_streams_ = 0;  // of streams_, those of logged scalars
  std::map<std::string, std::string> last_label_;  // epoch, phase -> the last one stored
  // Marks: a token bucket of kMarkBurst, one token back per spacing.
  double mark_tokens_ = kMarkBurst;
  std::optional<std::int64_t> mark_refill_mono_ns_;
  std::size_t stored_marks_ = 0;
  std::size_t dropped_marks_ = 0;
  std::optional<Timestamp> last_dropped_;
  std::size_t dropped_logs_ = 0;
  std::optional<Timestamp> last_dropped_log_;
};

// The message of a "marks_dropped" event: "N marks ...". Read back by analysis.
std::string marks_dropped_message(std::size_t dropped);
// The message of a "logs_dropped" event: "N log messages ...". Read back by analysis.
std::string logs_dropped_message(std::size_t dropped);

}  // namespace gpuwatch
