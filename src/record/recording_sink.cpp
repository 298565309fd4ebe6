#include "record/recording_sink.h"

#include <fmt/format.h>

#include "core/device_event_kinds.h"
#include "render/status_line.h"

namespace gpuwatch {

namespace {

// Messages while recording must never stop the recording: a closed terminal
// (EIO after the SSH session died) is ignored, unlike fmt::print's exception.
void say(std::FILE* out, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

constexpr std::int64_t kFlushEveryNs = 1'000'000'000;
// In place on a terminal: fast enough to feel live, slow enough to read.
constexpr std::int64_t kTtyRefreshNs = 500'000'000;
}  // namespace

RecordingSink::RecordingSink(Store& store, StatusLineOptions status) : store_(store), status_(status) {}

void RecordingSink::on_device_sample(const DeviceSample& sample) {
  store_.append(sample);
  if (status_.enabled) latest_[sample.device_index] = sample;
  if (advisor_) advisor_->on_device_sample(sample);
}

void RecordingSink::on_host_sample(const HostSample& sample) {
  store_.append(sample);
  // A read right after the previous one (the closing tick) has no CPU delta
  // yet; the line keeps showing the last value known rather than "n/a".
  latest_host_.merge_from(sample.values);
  if (advisor_) advisor_->on_host_sample(sample);
}

void RecordingSink::on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) {
  for (const GpuProcess& p : processes) store_.note_process(p, p.name, seen);
  if (job_gpus_ && job_gpus_->observe(processes)) note_job_gpus(seen);
}

void RecordingSink::track_job_gpus(JobGpuTracker tracker, Timestamp start) {
  job_gpus_ = std::move(tracker);
  note_job_gpus(start);
}

// Straight to the advisor, not through post_event(): it must not judge
// other jobs' GPUs for the second until the next flush.
void RecordingSink::note_job_gpus(Timestamp time) {
  const Event e{time, std::nullopt, std::string(kJobGpusEventKind), job_gpus_message(job_gpus_->current())};
  store_.add_event(e);
  if (advisor_) advisor_->on_event(e);
}

void RecordingSink::on_device_lost(int device_index, Timestamp when) {
  store_.mark_lost(device_index, when);
  store_.add_event({when, device_index, std::string(kGpuLostEventKind), "the GPU stopped answering (fell off the bus?)"});
  say(stderr, fmt::format("gpuwatch: GPU {} was lost; the other GPUs keep being recorded\n", device_index));
  latest_.erase(device_index);
}

void RecordingSink::on_device_event(const Event& event) {
  store_.add_event(event);
  if (advisor_) advisor_->on_event(event);
  // Said at once: an XID or a lost bit of data explains a crash that comes
  // next. Corrected single-bit errors can come by thousands and hurt nothing.
  if (event.kind != kEccSingleBitEventKind) {
    say(stderr, fmt::format("gpuwatch: GPU {}: {}\n", event.device_index.value_or(-1), event.message));
  }
}

void RecordingSink::post_event(Event event) {
  std::lock_guard lock(posted_mutex_);
  posted_.push_back(std::move(event));
}

void RecordingSink::post_annotation(const Annotation& annotation, Timestamp received) {
  std::lock_guard lock(posted_mutex_);
  ++annotations_received_;
  // An epoch_end annotation names the epoch that ended: the next one starts with its own.
  if (annotation.kind == AnnotationKind::Epoch && !annotation.epoch_end) progress_.epoch = annotation.count;
  if (annotation.kind == AnnotationKind::Step) progress_.step = annotation.count;
  annotation_throttle_.add(annotation_event(annotation, received), posted_);
}

std::size_t RecordingSink::annotations_received() const {
  std::lock_guard lock(posted_mutex_);
  return annotations_received_;
}

void RecordingSink::drain_posted(bool everything) {
  std::vector<Event> events;
  {
    std::lock_guard lock(posted_mutex_);
    if (everything) {
      annotation_throttle_.take_all(posted_);
    } else {
      annotation_throttle_.take_due(now().mono_ns, posted_);
    }
    events.swap(posted_);
  }
  for (const Event& e : events) {
    store_.add_event(e);
    if (advisor_) advisor_->on_event(e);
  }
}

void RecordingSink::flush(Timestamp time, bool everything) {
  drain_posted(everything);
  // Also after a failure: a full disk is retried once a second, not at every
  // tick with the whole backlog encoded again each time.
  last_flush_mono_ns_ = time.mono_ns;
  try {
    store_.flush();
    if (store_error_reported_) {
      const StoreBacklog b = store_.backlog();
      say(stderr, fmt::format("gpuwatch: the run store is written again{}\n",
                              b.dropped_samples + b.dropped_events == 0
                                  ? "; nothing was lost"
                                  : fmt::format("; {} samples and {} events were dropped meanwhile (a store_gap "
                                                "event marks where)",
                                                b.dropped_samples, b.dropped_events)));
    }
    store_error_reported_ = false;
  } catch (const StoreError& e) {
    // Keep sampling: the store keeps its buffers and the next flush retries.
    if (!store_error_reported_) {
      say(stderr, fmt::format("gpuwatch: cannot write the run store: {}; keeping up to {} MiB of samples in memory "
                              "until it can, then dropping the oldest (the command is not disturbed)\n",
                              e.what(), kMaxBufferedBytes >> 20));
    }
    store_error_reported_ = true;
  }
}

void RecordingSink::on_tick(Timestamp time) {
  if (last_flush_mono_ns_ == 0) last_flush_mono_ns_ = time.mono_ns;
  if (time.mono_ns - last_flush_mono_ns_ >= kFlushEveryNs) flush(time);
  if (status_.enabled) print_status(time);
  if (advisor_) {
    for (Event& e : advisor_->on_tick(time)) store_.add_event(std::move(e));
  }
}

void RecordingSink::print_status(Timestamp time) {
  const std::int64_t period = status_.tty ? kTtyRefreshNs : status_.period.count();
  if (last_status_mono_ns_ != 0 && time.mono_ns - last_status_mono_ns_ < period) return;
  last_status_mono_ns_ = time.mono_ns;
  std::vector<DeviceSample> latest;
  for (const auto& [index, sample] : latest_) latest.push_back(sample);
  StatusProgress progress;
  {
    std::lock_guard lock(posted_mutex_);
    progress = progress_;
  }
  if (!status_.tty) {
    say(status_.out, format_status_line(latest, latest_host_, 0, progress) + "\n");
    return;
  }
  if (!terminal_) terminal_.emplace(status_.out);
  terminal_->draw(format_status_line(latest, latest_host_, terminal_->width(), progress));
}

void RecordingSink::finish() {
  flush(now(), true);
  terminal_.reset();  // the terminal scrolls whole again
}

}  // namespace gpuwatch
