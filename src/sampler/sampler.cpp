#include "sampler/sampler.h"

#include <algorithm>
#include <string>
#include <thread>

#include <pthread.h>

#include "backends/procfs/host.h"
#include "core/device_event_kinds.h"
#include "core/metrics.h"

namespace gpuwatch {

namespace {

using Clock = std::chrono::steady_clock;

// How often the Costly metrics are read (see Cadence in core/metrics.h).
constexpr std::chrono::seconds kCostlyInterval{kCostlyPeriodSeconds};

// How long one wait for a device event blocks: the longest the event thread
// can delay the end of a run (a stop is seen between two waits).
constexpr std::chrono::milliseconds kEventWait{250};
// Waits the driver refuses in a row before events are given up for the run;
// the samples go on regardless.
constexpr int kMaxEventFailures = 20;

// Moves a deadline past `now` in whole intervals, returning how many were skipped.
std::int64_t skip_missed(Clock::time_point& deadline, std::chrono::nanoseconds interval) {
  const auto now = Clock::now();
  if (now < deadline + interval) return 0;
  const std::int64_t missed = (now - deadline) / interval;
  deadline += missed * interval;
  return missed;
}

}  // namespace

Sampler::Sampler(BackendSet& backends, HostReader* host, SamplerOptions options)
    : host_(options.host ? host : nullptr), options_(std::move(options)) {
  for (OpenBackend& open : backends.backends) {
    if (!options_.devices) break;
    for (const DeviceInfo& device : open.backend->devices()) {
      const int global = open.first_global_index + device.index;
      if (!options_.gpus.empty() &&
          std::find(options_.gpus.begin(), options_.gpus.end(), global) == options_.gpus.end()) {
        continue;
      }
      auto target = std::make_unique<Target>();
      target->backend = open.backend.get();
      target->local_index = static_cast<std::size_t>(device.index);
      target->global_index = global;
      targets_.push_back(std::move(target));
      if (std::find(backends_.begin(), backends_.end(), open.backend.get()) == backends_.end()) {
        backends_.push_back(open.backend.get());
      }
    }
  }
  slow_interval_ = options_.slow_interval.count() > 0
                       ? options_.slow_interval
                       : std::max<std::chrono::nanoseconds>(options_.interval, std::chrono::seconds(1));
  reset(mailbox_);
}

void Sampler::reset(SlowMailbox& box) const {
  box = {};
  box.values.resize(targets_.size());
  box.read_mono_ns.assign(targets_.size(), 0);
  box.fresh.assign(targets_.size(), false);
  box.lost.assign(targets_.size(), false);
}

Sampler::~Sampler() { stop(); }

void Sampler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

bool Sampler::wait_until(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_until(lock, deadline, [this] { return stopping_; });
}

void Sampler::run(SampleSink& sink, std::uint64_t max_ticks) {
  if (options_.prime_slow_metrics) read_slow_into_mailbox(SlowReadPlan{.costly = true});
  std::thread slow([this] {
    pthread_setname_np(pthread_self(), "gw-slow");  // so per-thread CPU shows in top -H
    slow_loop();
  });
  std::vector<std::thread> event_threads;
  try {
    event_threads = start_event_threads();
  } catch (...) {
    stop_and_join(slow, event_threads);
    throw;
  }
  std::vector<Pending> pending_slow(targets_.size());
  try {
    auto deadline = Clock::now();
    for (std::uint64_t tick = 0; max_ticks == 0 || tick < max_ticks; ++tick) {
      jitter_.record_missed(skip_missed(deadline, options_.interval));
      if (!wait_until(deadline)) break;
      jitter_.record_tick((Clock::now() - deadline).count());
      const Timestamp time = now();
      deliver_slow(sink, pending_slow);
      deliver_events(sink);
      sample_devices(sink, pending_slow, time);
      sink.on_tick(time);
      deadline += options_.interval;
    }
  } catch (...) {
    stop_and_join(slow, event_threads);  // a joinable thread must not outlive the unwinding
    throw;
  }
  stop_and_join(slow, event_threads);
  deliver_slow(sink, pending_slow);
  deliver_events(sink);
  if (options_.closing_sample) {
    // The costly counters once more, so that the energy counter spans the
    // whole run however long its cadence is.
    read_slow_into_mailbox(SlowReadPlan{.costly = true});
    deliver_slow(sink, pending_slow);
    const Timestamp time = now();
    sample_devices(sink, pending_slow, time);
    sink.on_tick(time);
  }
}

void Sampler::stop_and_join(std::thread& slow, std::vector<std::thread>& event_threads) {
  stop();
  if (slow.joinable()) slow.join();
  for (std::thread& t : event_threads) t.join();
  event_sources_.clear();  // the driver's event sets go with their run
}

bool Sampler::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

std::vector<std::thread> Sampler::start_event_threads() {
  std::vector<std::thread> threads;
  for (GpuBackend* backend : backends_) {
    std::unique_ptr<DeviceEventSource> source = backend->open_events();
    if (!source) continue;
    DeviceEventSource& s = *source;
    event_sources_.push_back(std::move(source));
    threads.emplace_back([this, &s, backend] {
      pthread_setname_np(pthread_self(), "gw-events");
      event_loop(s, backend);
    });
  }
  return threads;
}

void Sampler::event_loop(DeviceEventSource& source, const GpuBackend* backend) {
  int failures = 0;
  // At least one wait per run, even one stopped at once: an event the driver
  // queued before the run began is never left behind.
  do {
    DeviceEvent event;
    const DeviceEventSource::Wait result = source.wait(kEventWait, event);
    if (result == DeviceEventSource::Wait::Failed) {
      // A wait that fails at once must not spin: wait out the timeout here.
      if (++failures >= kMaxEventFailures) return;
      if (!wait_until(Clock::now() + kEventWait)) return;
      continue;
    }
    failures = 0;
    if (result != DeviceEventSource::Wait::Event) continue;
    const auto target = std::find_if(targets_.begin(), targets_.end(), [&](const auto& t) {
      return t->backend == backend && t->local_index == event.local_index;
    });
    if (target == targets_.end()) continue;  // a GPU this run does not watch
    Event e{event.time, (*target)->global_index, std::move(event.kind), std::move(event.message)};
    std::lock_guard lock(mutex_);
    if (events_.size() < kMaxDeviceEventsPerTick) {
      events_.push_back(std::move(e));
    } else {
      Dropped& d = dropped_[(*target)->global_index];
      ++d.count;
      d.last = std::move(e);
    }
  } while (!stopping());
}

void Sampler::deliver_events(SampleSink& sink) {
  std::vector<Event> events;
  std::map<int, Dropped> dropped;
  {
    std::lock_guard lock(mutex_);
    events.swap(events_);
    dropped.swap(dropped_);
  }
  for (const Event& e : events) sink.on_device_event(e);
  // After the kept ones: it is the latest news of its GPU.
  for (const auto& [index, d] : dropped) {
    sink.on_device_event(Event{d.last.time, index, std::string(kEventsDroppedEventKind),
                               std::to_string(d.count) + " more events of this GPU dropped: over " +
                                   std::to_string(kMaxDeviceEventsPerTick) +
                                   " came between two samples (the last: " + d.last.message + ")"});
  }
}

void Sampler::read_slow_into_mailbox(const SlowReadPlan& plan) {
  SlowMailbox fresh;
  read_slow_once(fresh, plan);
  std::lock_guard lock(mutex_);
  merge_into_mailbox(std::move(fresh));
}

void Sampler::sample_devices(SampleSink& sink, std::vector<Pending>& pending_slow, Timestamp time) {
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    Target& target = *targets_[i];
    if (target.lost.load()) continue;
    DeviceSample sample{target.global_index, time, {}};
    if (target.backend->read_fast(target.local_index, sample.values) == ReadStatus::Lost) {
      if (!target.lost.exchange(true)) sink.on_device_lost(target.global_index, time);
      continue;
    }
    if (Pending& carried = pending_slow[i]; !carried.values.empty()) {
      sample.values.merge_from(carried.values);
      sample.values.set(DeviceMetric::SlowReadAgeSeconds,
                        static_cast<double>(time.mono_ns - carried.read_mono_ns) / 1e9);
      carried = {};
    }
    sink.on_device_sample(sample);
  }
}

void Sampler::deliver_slow(SampleSink& sink, std::vector<Pending>& pending) {
  SlowMailbox box;
  {
    std::lock_guard lock(mutex_);
    box = std::move(mailbox_);
    reset(mailbox_);
  }
  for (std::size_t i = 0; i < box.values.size(); ++i) {
    if (box.lost[i]) sink.on_device_lost(targets_[i]->global_index, box.time);
    if (box.fresh[i]) {
      // A newer read replaces an older one that no tick has carried yet.
      pending[i].values.merge_from(box.values[i]);
      pending[i].read_mono_ns = box.read_mono_ns[i];
    }
  }
  if (box.processes_fresh) sink.on_processes(box.processes, box.time);
  if (box.host_fresh) sink.on_host_sample(box.host);
}

void Sampler::read_slow_once(SlowMailbox& into, SlowReadPlan plan) {
  reset(into);
  plan.processes = options_.processes;  // not listed at all when nobody wants them
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    Target& target = *targets_[i];
    if (target.lost.load()) continue;
    std::vector<GpuProcess> processes;
    // Backends read the energy counter first, so the start is its time.
    into.read_mono_ns[i] = now().mono_ns;
    if (target.backend->read_slow(target.local_index, plan, into.values[i], processes) == ReadStatus::Lost) {
      into.lost[i] = !target.lost.exchange(true);
      continue;
    }
    into.fresh[i] = true;
    if (!options_.processes) continue;
    for (GpuProcess& p : processes) {
      p.device_index = target.global_index;
      into.processes.push_back(std::move(p));
    }
  }
  into.processes_fresh = options_.processes && !targets_.empty();
  into.time = now();
  if (host_ != nullptr) {
    into.host = host_->read(into.time);
    into.host_fresh = true;
    // Which processes are the command's: what `record` judges GPUs by.
    const auto& tree = host_->tree_pids();
    for (GpuProcess& p : into.processes) {
      host_->describe(p);
      p.in_tree = std::find(tree.begin(), tree.end(), p.pid) != tree.end();
    }
  }
}

void Sampler::slow_loop() {
  const auto costly_interval = std::max<std::chrono::nanoseconds>(slow_interval_, kCostlyInterval);
  // Without priming, the first round starts at once and reads everything.
  const bool primed = options_.prime_slow_metrics;
  auto last_costly = Clock::now() - (primed ? std::chrono::nanoseconds(0) : costly_interval);
  auto deadline = Clock::now() + (primed ? slow_interval_ : std::chrono::nanoseconds(0));
  while (true) {
    skip_missed(deadline, slow_interval_);
    if (!wait_until(deadline)) return;
    SlowReadPlan plan;
    plan.costly = Clock::now() - last_costly >= costly_interval - slow_interval_ / 2;
    if (plan.costly) last_costly = Clock::now();
    read_slow_into_mailbox(plan);
    deadline += slow_interval_;
  }
}

void Sampler::merge_into_mailbox(SlowMailbox&& fresh) {
  for (std::size_t i = 0; i < fresh.values.size(); ++i) {
    if (fresh.fresh[i]) {
      mailbox_.values[i].merge_from(fresh.values[i]);
      mailbox_.read_mono_ns[i] = fresh.read_mono_ns[i];
      mailbox_.fresh[i] = true;
    }
    if (fresh.lost[i]) mailbox_.lost[i] = true;
  }
  if (fresh.processes_fresh) {
    mailbox_.processes = std::move(fresh.processes);
    mailbox_.processes_fresh = true;
  }
  if (fresh.host_fresh) {
    mailbox_.host = std::move(fresh.host);
    mailbox_.host_fresh = true;
  }
  mailbox_.time = fresh.time;
}

}  // namespace gpuwatch
