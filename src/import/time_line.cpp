#include "import/time_line.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/iso_time.h"
#include "import/plausible.h"

namespace gpuwatch {

namespace {

// ~31 years, far beyond kMaxRunSeconds: keeps every difference of monotonic
// times within int64 whatever the timestamps say.
constexpr std::int64_t kMaxMonoNs = 1'000'000'000'000'000'000;

// Both in [0, kMaxMonoNs].
std::int64_t capped_add(std::int64_t a, std::int64_t b) { return a > kMaxMonoNs - b ? kMaxMonoNs : a + b; }

constexpr std::int64_t kMaxRunNs = static_cast<std::int64_t>(kMaxRunSeconds * 1e9);

}  // namespace

std::size_t TimeLine::add(std::int64_t wall_ns, std::optional<double> elapsed_s) {
  spill_put(file_, Point{wall_ns, elapsed_s.value_or(kNaN)});
  alive_.push_back(true);
  return alive_.size() - 1;
}

std::int64_t TimeLine::wall_of(const Point& p) const {
  if (!walls_from_) return p.wall_ns;
  return std::min<std::int64_t>(*walls_from_ + p.elapsed_ns(), kMaxImportWallNs);
}

std::int64_t TimeLine::next_mono(std::int64_t previous_mono, std::int64_t previous_wall, std::int64_t wall) const {
  // Importers keep wall times within years 1970..2200, so differences fit.
  std::int64_t gap = wall - previous_wall;
  if (gap < 0) gap = step_ns_;
  return capped_add(previous_mono, std::min(gap, kMaxMonoNs));
}

std::pair<std::int64_t, std::int64_t> TimeLine::times_at(std::size_t i) {
  Point p{};
  file_.read_at(i * sizeof(Point), &p, sizeof p);
  return {p.elapsed_ns(), wall_of(p)};
}

std::pair<std::int64_t, std::int64_t> TimeLine::Cursor::at(std::size_t i) {
  Point p{};
  while (next_ <= i && spill_get(in_, p)) {
    const std::size_t j = next_++;
    if (!line_.in_clock_[j]) continue;
    wall_ = line_.wall_of(p);
    if (line_.from_elapsed_) {
      mono_ = p.elapsed_ns();
    } else {
      mono_ = previous_wall_ ? line_.next_mono(mono_, *previous_wall_, wall_) : 0;
      previous_wall_ = wall_;
    }
  }
  return {mono_, wall_};
}

void TimeLine::drop_implausible(ImportNotes& notes) {
  bool all_elapsed = true;
  bool any = false;
  for_each_alive([&](std::size_t, const Point& p) {
    any = true;
    all_elapsed = all_elapsed && p.has_elapsed();
  });
  if (!any) return;
  // Where each point says the run started, or its own wall time.
  const auto at = [all_elapsed](const Point& p) { return all_elapsed ? p.wall_ns - p.elapsed_ns() : p.wall_ns; };
  const std::int64_t middle = *streaming_median([&](const auto& f) {
    for_each_alive([&](std::size_t, const Point& p) { f(at(p)); });
  });
  const std::int64_t tolerance = all_elapsed ? kMaxClockDisagreementNs : kMaxRunNs;
  // Both within [-1e9 s, 7.3e9 s] of the epoch: the difference fits.
  drop_unless([&](std::size_t, const Point& p) { return std::llabs(at(p) - middle) <= tolerance; },
              all_elapsed ? kClockDisagreement : "with a timestamp more than 366 days from the run's median time",
              notes);
}

void TimeLine::settle(ImportNotes& notes) {
  std::size_t alive = 0;
  std::size_t with_elapsed = 0;
  for_each_alive([&](std::size_t, const Point& p) {
    ++alive;
    with_elapsed += p.has_elapsed() ? 1 : 0;
  });
  in_clock_ = alive_;
  from_elapsed_ = alive > 0 && with_elapsed == alive;
  if (!from_elapsed_) {
    if (with_elapsed) notes.warn("some samples have no elapsed seconds, so all times come from the timestamps");
    // The median of the forward steps, and how many went backwards.
    std::size_t backwards = 0;
    const auto steps = [&](const auto& f) {
      std::optional<std::int64_t> previous;
      for_each_alive([&](std::size_t, const Point& p) {
        if (previous && p.wall_ns > *previous) f(p.wall_ns - *previous);
        previous = p.wall_ns;
      });
    };
    step_ns_ = streaming_median(steps).value_or(0);
    std::optional<std::int64_t> previous;
    for_each_alive([&](std::size_t, const Point& p) {
      backwards += previous && p.wall_ns < *previous ? 1 : 0;
      previous = p.wall_ns;
    });
    if (backwards) {
      notes.warn(fmt::format("timestamps went backwards {} time{} (a clock or daylight-saving change?); each such "
                             "step counts as one median interval ({} s)",
                             backwards, backwards == 1 ? "" : "s", static_cast<double>(step_ns_) / 1e9));
    }
  }
  drop_inconsistent(notes);
  last_mono_ns_ = 0;
  for_each_mono([&](std::size_t, std::int64_t, std::int64_t mono) { last_mono_ns_ = std::max(last_mono_ns_, mono); });
}

// Every timestamp lies within kMaxRunSeconds of the median one, yet a file
// whose clock jumps back and forth by months adds up each forward jump (and
// each backward one counts as a median step): its tail would make a run
// longer than any run can be, and its timestamps would disagree with the
// run's clock by months. Exported (elapsed_s from monotonic time) and
// imported again, such a run must come back whole, so it must pass the rule
// that files with elapsed seconds pass: each sample's wall - monotonic
// within a day of their median. The median moves as samples go: repeated
// until it holds for every sample kept.
void TimeLine::drop_inconsistent(ImportNotes& notes) {
  std::vector<bool> keep(alive_.size());
  for_each_mono([&](std::size_t i, std::int64_t, std::int64_t mono) { keep[i] = mono <= kMaxRunNs; });
  drop_unless([&](std::size_t i, const Point&) { return keep[i]; },
              "more than 366 days after the first sample (timestamps that jump back and forth)", notes);
  for (;;) {
    // Wall times within years 1970..2200 and monotonic ones within a year: the difference fits.
    start_wall_ns_ = streaming_median([&](const auto& f) {
      for_each_mono([&](std::size_t, std::int64_t wall, std::int64_t mono) { f(wall - mono); });
    });
    if (!start_wall_ns_) return;
    bool all = true;
    for_each_mono([&](std::size_t i, std::int64_t wall, std::int64_t mono) {
      keep[i] = std::llabs(wall - mono - *start_wall_ns_) <= kMaxClockDisagreementNs;
      all = all && keep[i];
    });
    if (all) return;
    drop_unless([&](std::size_t i, const Point&) { return keep[i]; },
                "whose timestamp disagrees with the run's clock by more than a day", notes);
  }
}

}  // namespace gpuwatch
