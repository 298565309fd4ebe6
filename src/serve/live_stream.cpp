#include "serve/live_stream.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "analysis/run_status.h"
#include "core/metrics.h"
#include "runs/run_status_window.h"
#include "base/json_writer.h"
#include "render/plot/plot.h"
#include "serve/live_event_log.h"
#include "serve/run_api.h"

namespace gpuwatch {

namespace {

// The recorder commits once a second: half that finds a commit within half a
// second, and each poll reads only the new samples and the run's events.
constexpr std::chrono::milliseconds kPollPeriod{500};
constexpr std::chrono::seconds kKeepAlivePeriod{15};
// An event carries at most this many ticks of each GPU (with 8 GPUs about
// 0.8 MB): a stream asked to start long ago (since=0 on a 35-hour run) sends
// the past a page at a time, one after the other, and never holds more.
constexpr std::int64_t kLivePageTicks = 2000;
// Whether a column has a value: a metric this run never read (or a slow one
// not read within the page) is left out of the event.
bool any_value(const std::vector<double>& column) {
  return std::any_of(column.begin(), column.end(), [](double v) { return !std::isnan(v); });
}

void write_live_device(JsonWriter& w, const RunInfo& run, const DeviceSeries& d) {
  w.begin_object().field("gpu", d.info.index).key("t").begin_array();
  for (const std::int64_t t : d.mono_ns) w.value(seconds_since_start(run, t));
  w.end_array().key("values").begin_object();
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const std::vector<double>& column = d.values[i];
    if (!plot::plottable(static_cast<DeviceMetric>(i)) || column.size() != d.mono_ns.size() || !any_value(column)) continue;
    w.key(kDeviceMetrics[i].name).begin_array();
    for (const double v : column) w.value(v);
    w.end_array();
  }
  w.end_object().end_object();
}

// The host's samples of the page, as the host's charts name them
// (/api/runs/ID/host): the run page's host charts grow with it.
void write_live_host(JsonWriter& w, const RunInfo& run, const HostSeries& host) {
  w.key("host").begin_object().key("t").begin_array();
  for (const std::int64_t t : host.mono_ns) w.value(seconds_since_start(run, t));
  w.end_array().key("values").begin_object();
  for (std::size_t i = 0; i < kHostMetricCount && i < host.values.size(); ++i) {
    const std::vector<double>& column = host.values[i];
    if (column.size() != host.mono_ns.size() || !any_value(column)) continue;
    w.key(kHostMetrics[i].name).begin_array();
    for (const double v : column) w.value(v);
    w.end_array();
  }
  w.end_object().end_object();
}

std::string samples_event(const RunData& data, const Progress& progress, std::span<const Event* const> events) {
  std::string out = "event: samples\ndata: ";
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeGpusSchemaVersion).field("run", data.run.id);
  w.key("devices").begin_array();
  for (const DeviceSeries& d : data.devices) {
    if (!d.mono_ns.empty()) write_live_device(w, data.run, d);
  }
  w.end_array();
  write_live_host(w, data.run, data.host);
  // The annotations and device events stored since the last event: markers,
  // training curves and steps/s grow from them.
  w.key("events").begin_array();
  for (const Event* e : events) {
    w.begin_object().field("t", seconds_since_start(data.run, e->time.mono_ns)).field("kind", e->kind);
    w.field("message", e->message).field("gpu", e->device_index).end_object();
  }
  w.end_array().key("progress").begin_object();
  w.field("epoch", progress.epoch).field("step", progress.step).field("loss", progress.loss);
  w.end_object().end_object();
  out += "\n\n";
  return out;
}

std::string end_event(const RunInfo& run) {
  std::string out = "event: end\ndata: ";
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeSchemaVersion).field("status", to_string(run.status));
  w.field("exit_code", run.exit_code).field("duration_s", seconds_since_start(run, stored_run_end_mono_ns(run)));
  w.end_object();
  out += "\n\n";
  return out;
}

class LiveStream final : public HttpStream {
 public:
  LiveStream(LiveStreams& streams, std::unique_ptr<Store> store, RunInfo run, std::int64_t after_mono_ns)
      : streams_(streams), store_(std::move(store)), run_(std::move(run)), after_mono_ns_(after_mono_ns),
        page_ns_(kLivePageTicks * static_cast<std::int64_t>((run_.interval_s > 0 ? run_.interval_s : 0.5) * 1e9)),
        last_write_(std::chrono::steady_clock::now()) {}
  ~LiveStream() override { streams_.release(); }
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  bool next(const std::function<bool(std::string_view)>& write) override {
    // Behind the store: the next page at once, without waiting for a commit.
    if (catching_up_ ? streams_.stopping() : !streams_.wait(kPollPeriod)) return false;
    RunInfo now;
    try {
      now = store_->resolve(run_.id);
    } catch (const StoreError&) {
      return false;  // deleted meanwhile
    }
    const std::int64_t page_end = after_mono_ns_ + page_ns_;
    LoadOptions options;
    options.device_wall_clock = false;
    options.since_mono_ns = after_mono_ns_ + 1;
    options.until_mono_ns = page_end;
    const RunData data = store_->load(now, options);
    std::int64_t newest = after_mono_ns_;
    for (const DeviceSeries& d : data.devices) {
      if (!d.mono_ns.empty()) newest = std::max(newest, d.mono_ns.back());
    }
    catching_up_ = stored_run_end_mono_ns(now) > page_end;
    const auto clock = std::chrono::steady_clock::now();
    if (newest > after_mono_ns_) {
      last_write_ = clock;
      if (!write(samples_event(data, progress_at(data.events, newest), events_.unsent(data.events, newest)))) {
        return false;
      }
    }
    // A page without samples (a gap in the recording) is passed over too.
    after_mono_ns_ = catching_up_ ? std::max(newest, page_end) : newest;
    if (catching_up_) return true;
    if (now.status != RunStatus::Recording) {
      (void)write(end_event(now));
      return false;
    }
    if (clock - last_write_ >= kKeepAlivePeriod) {
      last_write_ = clock;
      return write(": keep-alive\n\n");
    }
    return true;
  }

 private:
  LiveStreams& streams_;
  std::unique_ptr<Store> store_;
  RunInfo run_;
  std::int64_t after_mono_ns_;
  std::int64_t page_ns_;  // the most one event covers
  bool catching_up_ = false;  // the last page ended before the stored run did
  SentEvents events_{after_mono_ns_};
  std::chrono::steady_clock::time_point last_write_;
};

}  // namespace

void LiveStreams::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

bool LiveStreams::wait(std::chrono::milliseconds period) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, period, [this] { return stopping_.load(); });
  return !stopping_;
}

bool LiveStreams::acquire() {
  if (++active_ <= kMaxStreams) return true;
  --active_;
  return false;
}

std::unique_ptr<HttpStream> open_live_stream(LiveStreams& streams, std::unique_ptr<Store> store, RunInfo run,
                                             std::optional<double> since_s) {
  // Without `since`, the data there is now: the page has drawn it from /series already.
  const std::int64_t after =
      since_s ? run.start_mono_ns + static_cast<std::int64_t>(*since_s * 1e9) : stored_run_end_mono_ns(run);
  return std::make_unique<LiveStream>(streams, std::move(store), std::move(run), after);
}

}  // namespace gpuwatch
