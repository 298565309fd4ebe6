// Where a recording's samples go: the store (committed at least once a
// second), and optionally seed 004's status line on stderr.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "annotate/annotation.h"
#include "analysis/job_gpus.h"
#include "annotate/annotation_throttle.h"
#include "record/live_advisor.h"
#include "record/terminal_status.h"
#include "render/status_line.h"
#include "sampler/sampler.h"
#include "store/store.h"

namespace gpuwatch {

struct StatusLineOptions {
  bool enabled = false;
  bool tty = false;                     // on the terminal's bottom row, else one line per period
  std::chrono::nanoseconds period = std::chrono::seconds(10);
  std::FILE* out = stderr;
};

class RecordingSink final : public SampleSink {
 public:
  RecordingSink(Store& store, StatusLineOptions status);

  void on_device_sample(const DeviceSample& sample) override;
  void on_host_sample(const HostSample& sample) override;
  void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) override;
  void on_device_lost(int device_index, Timestamp when) override;
  // Stored as a run event of its kind (core/device_event_kinds.h).
  void on_device_event(const Event& event) override;
  void on_tick(Timestamp tick_time) override;

  // Thread-safe: for events seen outside the sampling thread (signals).
  void post_event(Event event);
  // Thread-safe: the training's annotations (socket, output scanner).
  void post_annotation(const Annotation& annotation, Timestamp received);
  [[nodiscard]] std::size_t annotations_received() const;
  // record --advise: the advisor sees every sample and annotation. Not owned.
  void set_advisor(LiveAdvisor* advisor) { advisor_ = advisor; }
  // Which GPUs are the job's: stores the tracker's decision now and again
  // whenever the command's processes change it (as "job_gpus" events, which
  // the advisor sees too). Call after the run began, before sampling.
  void track_job_gpus(JobGpuTracker tracker, Timestamp start);
  // Writes what is buffered; call once sampling has stopped.
  void finish();

 private:
  // everything: also the annotations the throttle holds back.
  void flush(Timestamp time, bool everything = false);
  void drain_posted(bool everything);
  void print_status(Timestamp time);
  void note_job_gpus(Timestamp time);

  Store& store_;
  StatusLineOptions status_;
  std::optional<TerminalStatusLine> terminal_;  // when status_.tty, from the first line to finish()
  std::int64_t last_flush_mono_ns_ = 0;
  std::int64_t last_status_mono_ns_ = 0;
  bool store_error_reported_ = false;
  std::map<int, DeviceSample> latest_;
  HostValues latest_host_;
  mutable std::mutex posted_mutex_;
  std::vector<Event> posted_;
  AnnotationThrottle annotation_throttle_;
  std::size_t annotations_received_ = 0;
  StatusProgress progress_;  // the latest epoch and step annotated, for the status line; under posted_mutex_
  LiveAdvisor* advisor_ = nullptr;
  std::optional<JobGpuTracker> job_gpus_;
};

}  // namespace gpuwatch
