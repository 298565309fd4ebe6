// Bounding what a recording keeps in memory while its store cannot be
// written (a full disk, a quota): past kMaxBufferedBytes the oldest samples
// and events go first, counted, and the next commit that succeeds stores one
// store_gap event saying how many and over which time. Recording goes on and
// the command is never disturbed; only the gap is lost.
#include <algorithm>

#include <fmt/format.h>

#include "store/store_impl.h"

namespace gpuwatch {
namespace {

std::size_t bytes_of(const DeviceSample&) { return sizeof(DeviceSample); }
std::size_t bytes_of(const HostSample& s) { return sizeof(HostSample) + s.core_percent.capacity() * sizeof(double); }
std::size_t bytes_of(const Event& e) { return sizeof(Event) + e.kind.capacity() + e.message.capacity(); }

template <typename T>
std::size_t bytes_of(const std::vector<T>& v) {
  std::size_t n = 0;
  for (const T& x : v) n += bytes_of(x);
  return n;
}

template <typename Pending>
std::size_t pending_bytes(const Pending& p) {
  std::size_t n = bytes_of(p.host) + bytes_of(p.events);
  for (const auto& [device, samples] : p.devices) n += bytes_of(samples);
  return n;
}

// Removes the oldest share of `v` so that `keep` (0..1) of it remains;
// returns how many went.
template <typename T, typename OnDropped>
std::size_t drop_oldest(std::vector<T>& v, double keep, OnDropped on_dropped) {
  const auto kept = static_cast<std::size_t>(keep * static_cast<double>(v.size()));
  const std::size_t n = v.size() - std::min(kept, v.size());
  if (n == 0) return 0;
  on_dropped(v.front(), v[n - 1]);
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

std::string gap_message(std::uint64_t samples, std::uint64_t events, const Timestamp& first,
                        const Timestamp& last, std::string_view why) {
  std::string what;
  if (samples > 0) {
    what = fmt::format("{} sample{} over {:.1f} s", samples, samples == 1 ? "" : "s",
                       static_cast<double>(last.mono_ns - first.mono_ns) / 1e9);
  }
  if (events > 0) {
    what += fmt::format("{}{} event{}", what.empty() ? "" : " and ", events, events == 1 ? "" : "s");
  }
  return fmt::format("{} not saved: the run store could not be written ({})", what, why);
}

}  // namespace

void Store::Impl::trim_pending(std::size_t limit_bytes, std::string_view why) {
  const std::size_t total = pending_bytes(pending);
  if (total <= limit_bytes) return;
  // Down to three quarters of the limit, so that a store that stays full
  // does not trim at every failed flush.
  const double keep = 0.75 * static_cast<double>(limit_bytes) / static_cast<double>(total);
  auto note_times = [this](const auto& oldest, const auto& newest) {
    if (gap.samples == 0 || oldest.time.mono_ns < gap.first.mono_ns) gap.first = oldest.time;
    if (gap.samples == 0 || newest.time.mono_ns > gap.last.mono_ns) gap.last = newest.time;
  };
  std::uint64_t samples = 0;
  for (auto& [device, series] : pending.devices) {
    const std::size_t n = drop_oldest(series, keep, note_times);
    samples += n;
    gap.samples += n;
  }
  const std::size_t host = drop_oldest(pending.host, keep, note_times);
  samples += host;
  gap.samples += host;
  const std::size_t events = drop_oldest(pending.events, keep, [](const Event&, const Event&) {});
  gap.events += events;
  gap.why = why;
  backlog_totals.dropped_samples += samples;
  backlog_totals.dropped_events += events;
}

Store::Impl::Gap Store::Impl::write_gap(std::int64_t run_row) {
  Gap g;
  {
    std::lock_guard lock(buf_mutex);
    g = gap;
  }
  if (g.empty()) return g;
  // Placed where the samples went missing, so a timeline shows the hole.
  const Timestamp at = g.samples > 0 ? g.first : now();
  sql::Stmt st(db.get(), R"sql(
    INSERT INTO events (run_id, wall_ns, mono_ns, device_idx, kind, message)
    VALUES (?1, ?2, ?3, NULL, 'store_gap', ?4))sql");
  st.bind(1, run_row).bind(2, at.wall_ns).bind(3, at.mono_ns);
  st.bind(4, gap_message(g.samples, g.events, g.first, g.last, g.why)).run();
  return g;
}

void Store::Impl::forget_gap(const Gap& written) {
  std::lock_guard lock(buf_mutex);
  gap.samples -= std::min(gap.samples, written.samples);
  gap.events -= std::min(gap.events, written.events);
  if (gap.empty()) gap = {};
}

StoreBacklog Store::backlog() const {
  std::lock_guard lock(impl_->buf_mutex);
  StoreBacklog b = impl_->backlog_totals;
  b.buffered_bytes = pending_bytes(impl_->pending);
  return b;
}

}  // namespace gpuwatch
