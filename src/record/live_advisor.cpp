#include "record/live_advisor.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/advisor/recorded.h"
#include "analysis/run_report.h"
#include "analysis/training.h"
#include "core/durations.h"
#include "render/advisories.h"

namespace gpuwatch {

namespace {

// How long after its time an epoch event may still arrive and split the
// per-second memory points exactly (they come with the store's commits,
// about a second late).
constexpr std::int64_t kPeaksSettledAfterNs = 60 * kSecondNs;

}  // namespace

LiveAdvisor::LiveAdvisor(LiveAdvisorOptions options, const RunInfo& run, const std::vector<DeviceInfo>& devices,
                         std::function<void(const std::string& reason)> on_underuse,
                         std::function<void(const std::string& reason)> on_hang)
    : options_(std::move(options)),
      on_underuse_(std::move(on_underuse)),
      on_hang_(std::move(on_hang)),
      peaks_(run, devices),
      start_mono_ns_(run.start_mono_ns) {
  window_ = run_without_samples(run, devices);
  window_.host.values.resize(kHostMetricCount);
  last_check_mono_ns_ = start_mono_ns_;
}

void LiveAdvisor::on_device_sample(const DeviceSample& sample) {
  append_sample(window_, sample);
  peaks_.add_sample(sample);
}

void LiveAdvisor::on_host_sample(const HostSample& sample) { append_sample(window_, sample); }

void LiveAdvisor::on_event(const Event& event) {
  if (event.kind == "log") {
    for (const auto& [name, value] : parse_log_message(event.message)) {
      if (name == "model_params") model_params_ = event;
    }
  }
  if (event.kind == kJobGpusEventKind) job_gpus_ = event;
  if (event.kind == "epoch") peaks_.add_epoch(event);
  window_.events.push_back(event);
}

void LiveAdvisor::trim_window(std::int64_t now_mono_ns) {
  const auto from = now_mono_ns - static_cast<std::int64_t>(advisor_span_s(options_.config) * 1e9);
  drop_samples_before(window_, from);
  std::erase_if(window_.events, [from](const Event& e) { return e.time.mono_ns < from; });
  // Epoch events come within a second or two: before the window's span (a
  // minute at least) the epochs' boundaries are settled.
  peaks_.fold_before(std::min(from, now_mono_ns - kPeaksSettledAfterNs));
}

// The model's size and the job's GPUs are sent once: kept past the window.
RunData LiveAdvisor::with_kept_events(RunData data) const {
  for (const std::optional<Event>& kept : {model_params_, job_gpus_}) {
    if (kept && std::none_of(data.events.begin(), data.events.end(), [&](const Event& e) {
          return e.kind == kept->kind && e.time.mono_ns == kept->time.mono_ns;
        })) {
      data.events.insert(data.events.begin(), *kept);
    }
  }
  // Events arrive a second late (they are drained with the store's commits).
  std::stable_sort(data.events.begin(), data.events.end(),
                   [](const Event& a, const Event& b) { return a.time.mono_ns < b.time.mono_ns; });
  return data;
}

std::vector<Event> LiveAdvisor::on_tick(Timestamp time) {
  std::vector<Event> stored;
  if (time.mono_ns - last_check_mono_ns_ < static_cast<std::int64_t>(options_.check_interval_s * 1e9)) return stored;
  last_check_mono_ns_ = time.mono_ns;
  trim_window(time.mono_ns);

  // The rules see window_s; the hang rule the longer span (advisor_span_s),
  // window_ itself: it reads samples and step annotations, in any order.
  RunData recent = advisor_window(window_, options_.config, time.mono_ns);
  const auto from = time.mono_ns - static_cast<std::int64_t>(options_.config.window_s * 1e9);
  std::erase_if(recent.events, [from](const Event& e) { return e.time.mono_ns < from; });
  const RunData data = with_kept_events(std::move(recent));
  const RunReport report = build_report(data);
  const std::vector<EpochPeak> epochs = epoch_peaks(peaks_.data());
  const AdvisorInput input{report, data, static_cast<double>(time.mono_ns - start_mono_ns_) / 1e9, epochs, &window_};
  std::vector<Advisory> advisories = advise(input, options_.config);

  const std::vector<AdvisoryChange> changes = diff_advisories(current_, advisories);
  current_ = std::move(advisories);
  if (options_.print && !changes.empty()) {
    const std::string text = advisory_changes_text(changes);
    std::fputs(("gpuwatch advisor:\n" + text).c_str(), options_.out);
    std::fflush(options_.out);
  }
  for (const AdvisoryChange& c : changes) {
    stored.push_back(Event{time, c.advisory.device_index, std::string(kAdvisoryEventKind), advisory_event_message(c)});
  }
  act_on_underuse(time.mono_ns, report);
  act_on_hang(time.mono_ns);
  return stored;
}

void LiveAdvisor::act_on_underuse(std::int64_t now_ns, const RunReport& report) {
  std::vector<int> recorded_gpus;
  for (const DeviceSeries& d : window_.devices) recorded_gpus.push_back(d.info.index);
  const std::vector<const Advisory*> underuse = acting_underuse(current_, options_.kill_rules, report.job_gpus, recorded_gpus);
  // Judged on other GPUs now (the command showed on one): the clock restarts.
  if (report.job_gpus != judged_) underuse_.since_ns.reset();
  judged_ = report.job_gpus;
  underuse_.update(!underuse.empty(), now_ns);
  if (!options_.kill_after_s || underuse_.acted || !underuse_.since_ns ||
      underuse_.held_s(now_ns) < *options_.kill_after_s) {
    return;
  }
  underuse_.acted = true;
  std::string ids;
  for (const Advisory* a : underuse) ids += (ids.empty() ? "" : ", ") + to_string(AdvisoryRef{a->id, a->device_index});
  on_underuse_(fmt::format("{} for {:.0f} s; {}", ids, underuse_.held_s(now_ns), underuse.front()->summary));
}

void LiveAdvisor::act_on_hang(std::int64_t now_ns) {
  const auto hung = std::find_if(current_.begin(), current_.end(), [](const Advisory& a) { return a.id == "job.hung"; });
  const bool appeared = hung != current_.end() && !hung_.since_ns;
  hung_.update(hung != current_.end(), now_ns);
  if (!options_.on_hang || !on_hang_ || hung == current_.end()) return;
  const std::string reason = fmt::format("job.hung for {:.0f} s; {}", hung_.held_s(now_ns), hung->summary);
  if (options_.on_hang->kind == HangAction::Kind::Signal) {
    if (appeared) on_hang_(reason);  // once per hang, not every check
  } else if (!hung_.acted && hung_.held_s(now_ns) >= options_.hang_kill_after_s) {
    hung_.acted = true;
    on_hang_(reason);
  }
}

}  // namespace gpuwatch
