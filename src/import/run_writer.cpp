// RunBuilder's second half: the run, once every record is read, handed to a
// RunSink each series in time order, from the spill.
#include <algorithm>
#include <cmath>
#include <limits>

#include "import/run_builder.h"
#include "import/spilled_records.h"

namespace gpuwatch {

namespace {

constexpr int kHostSeriesKey = -1;
constexpr int kEventSeriesKey = -2;

// The series a record belongs to: its GPU, the host, the events.
int series_of(const SpilledRecord& r) {
  switch (r.tag) {
    case RecordTag::Device: return r.device;
    case RecordTag::Host: return kHostSeriesKey;
    default: return kEventSeriesKey;
  }
}

}  // namespace

// The records of the spill whose time point is kept, each series in time
// order: files are nearly always in order, and then one pass over the spill
// gives them all; a series whose times go backwards (elapsed seconds out of
// order) is sorted by (monotonic time, place in the file), which costs 16
// bytes per row of that series.
class RunBuilder::Rows {
 public:
  struct Series {
    std::size_t rows = 0;
    bool in_order = true;
    std::int64_t last_mono_ns = std::numeric_limits<std::int64_t>::min();
    std::vector<std::pair<std::int64_t, std::uint64_t>> sorted;  // (mono, spill offset) unless in order
  };

  Rows(SpillFile& spill, TimeLine& times) : spill_(spill), times_(times) { plan(); }

  [[nodiscard]] const std::map<int, Series>& series() const { return series_; }

  // f(record, mono_ns, wall_ns) for each record kept, each series in time
  // order, processes in file order; with `only`, that series alone.
  template <typename F>
  void visit(const F& f, std::optional<int> only = std::nullopt) {
    in_file_order([&](const SpilledRecord& r, std::uint64_t, std::int64_t mono, std::int64_t wall) {
      if (r.tag == RecordTag::Process) {
        if (!only) f(r, mono, wall);
        return;
      }
      const int key = series_of(r);
      if ((!only || key == *only) && series_.at(key).in_order) f(r, mono, wall);
    });
    SpilledRecord r;
    for (const auto& [key, s] : series_) {
      if (only && key != *only) continue;
      for (const auto& [mono, offset] : s.sorted) {
        SpillFile::Reader in(spill_, offset, 4096);  // a record here and there: read little ahead
        read_record(in, r);
        f(r, mono, times_.times_at(r.time).second);
      }
    }
  }

 private:
  // f(record, offset, mono, wall) for every record kept and every process,
  // in file order (processes have no time: 0, 0).
  template <typename F>
  void in_file_order(const F& f) {
    SpillFile::Reader in(spill_);
    TimeLine::Cursor cursor(times_);
    SpilledRecord r;
    for (std::uint64_t offset = in.offset(); read_record(in, r); offset = in.offset()) {
      if (r.tag == RecordTag::Process) {
        f(r, offset, 0, 0);
      } else if (times_.alive(r.time)) {
        // Records refer to the newest time point: their times never decrease in the file.
        const auto [mono, wall] = cursor.at(r.time);
        f(r, offset, mono, wall);
      }
    }
  }

  void plan() {
    bool sorted = true;
    in_file_order([&](const SpilledRecord& r, std::uint64_t, std::int64_t mono, std::int64_t) {
      if (r.tag == RecordTag::Process) return;
      Series& s = series_[series_of(r)];
      ++s.rows;
      if (mono < s.last_mono_ns) s.in_order = sorted = false;
      s.last_mono_ns = mono;
    });
    if (sorted) return;
    in_file_order([&](const SpilledRecord& r, std::uint64_t offset, std::int64_t mono, std::int64_t) {
      if (r.tag == RecordTag::Process) return;
      Series& s = series_[series_of(r)];
      if (!s.in_order) s.sorted.emplace_back(mono, offset);
    });
    for (auto& [key, s] : series_) {
      std::stable_sort(s.sorted.begin(), s.sorted.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    }
  }

  SpillFile& spill_;
  TimeLine& times_;
  std::map<int, Series> series_;
};

namespace {

// Median gap between distinct consecutive times of a series, in seconds.
template <typename Rows>
std::optional<double> median_interval_s(Rows& rows, int series) {
  const auto gaps = [&](const auto& f) {
    std::optional<std::int64_t> previous;
    rows.visit(
        [&](const SpilledRecord& r, std::int64_t mono, std::int64_t) {
          if (r.tag == RecordTag::Process) return;
          if (previous && mono > *previous) f(mono - *previous);
          previous = mono;
        },
        series);
  };
  const auto gap = streaming_median(gaps);
  if (!gap) return std::nullopt;
  return std::round(static_cast<double>(*gap) / 1e3) / 1e6;  // to the microsecond
}

bool keeps_last_value(DeviceMetric m) { return info(m).cadence == Cadence::Static || m == DeviceMetric::MemTotalBytes; }

// Columns in memory: what build() returns.
class ColumnsSink final : public RunSink {
 public:
  explicit ColumnsSink(RunData& data) : data_(data) {}

  void begin(RunInfo& run, const std::vector<DeviceInfo>& devices, const RunShape& shape) override {
    data_.run = run;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      DeviceSeries& s = data_.devices.emplace_back();
      s.info = devices[d];
      position_[devices[d].index] = d;
      s.mono_ns.reserve(shape.device_rows[d]);
      s.wall_ns.reserve(shape.device_rows[d]);
      s.values.assign(kDeviceMetricCount, {});
      for (auto& column : s.values) column.reserve(shape.device_rows[d]);
    }
    HostSeries& h = data_.host;
    h.values.assign(kHostMetricCount, {});
    h.core_percent.assign(shape.host_cores, {});
    for (auto* columns : {&h.values, &h.core_percent}) {
      for (auto& column : *columns) column.reserve(shape.host_rows);
    }
  }
  void device(const DeviceSample& sample) override {
    DeviceSeries& s = data_.devices[position_.at(sample.device_index)];
    s.mono_ns.push_back(sample.time.mono_ns);
    s.wall_ns.push_back(sample.time.wall_ns);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      s.values[m].push_back(sample.values.value_or_nan(static_cast<DeviceMetric>(m)));
    }
  }
  void host(const HostSample& sample) override {
    HostSeries& h = data_.host;
    h.mono_ns.push_back(sample.time.mono_ns);
    h.wall_ns.push_back(sample.time.wall_ns);
    for (std::size_t m = 0; m < kHostMetricCount; ++m) {
      h.values[m].push_back(sample.values.value_or_nan(static_cast<HostMetric>(m)));
    }
    for (std::size_t c = 0; c < h.core_percent.size(); ++c) {
      h.core_percent[c].push_back(c < sample.core_percent.size() ? sample.core_percent[c] : kNaN);
    }
  }
  void event(const Event& event) override { data_.events.push_back(event); }
  void process(const ProcessRecord& process) override { data_.processes.push_back(process); }

 private:
  RunData& data_;
  std::map<int, std::size_t> position_;
};

}  // namespace

std::vector<DeviceInfo> RunBuilder::device_infos(Rows& rows, RunShape& shape, std::map<int, MetricSet>& never_read) {
  struct Seen {
    MetricSet any;
    MetricSet nonzero;
    DeviceValues last;  // of the metrics whose last value is the device's
  };
  std::map<int, Seen> seen;
  rows.visit([&](const SpilledRecord& r, std::int64_t, std::int64_t) {
    if (r.tag == RecordTag::Host) shape.host_cores = std::max(shape.host_cores, r.cores.size());
    if (r.tag != RecordTag::Device) return;
    Seen& s = seen[r.device];
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      const auto metric = static_cast<DeviceMetric>(m);
      const auto v = r.device_values.get(metric);
      if (!v) continue;
      s.any.set(m);
      if (*v != 0) s.nonzero.set(m);
      if (keeps_last_value(metric)) s.last.set(metric, *v);
    }
  });
  if (const auto host = rows.series().find(kHostSeriesKey); host != rows.series().end()) {
    shape.host_rows = host->second.rows;
  }

  std::vector<DeviceInfo> out;
  for (const auto& [index, s] : seen) {
    MetricSet& never = never_read[index];
    for (const DeviceMetric m : zero_means_absent_) {
      const auto k = static_cast<std::size_t>(m);
      never.set(k, !s.nonzero.test(k));
    }
    DeviceInfo info;
    info.index = index;
    info.backend = "import";
    if (const auto facts = devices_.find(index); facts != devices_.end()) {
      info.name = facts->second.name;
      info.vendor = facts->second.vendor;
    }
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      if (!s.any.test(m) || never.test(m)) continue;
      const auto metric = static_cast<DeviceMetric>(m);
      info.supported.push_back(metric);
      if (const auto v = s.last.get(metric)) info.static_values.set(metric, *v);
    }
    shape.device_rows.push_back(rows.series().at(index).rows);
    out.push_back(std::move(info));
  }
  return out;
}

RunInfo RunBuilder::run_info(const std::string& name, Rows& rows, const std::vector<DeviceInfo>& devices) {
  RunInfo run;
  run.name = name;
  run.status = RunStatus::Finished;
  run.end_reason = "imported";
  run.start_mono_ns = 0;
  if (const auto start = times_.start_wall_ns()) {
    run.start_wall_ns = *start;
    run.end_wall_ns = *start + times_.last_mono_ns();
  }
  std::optional<double> interval;
  for (const DeviceInfo& d : devices) {
    if ((interval = median_interval_s(rows, d.index))) break;
  }
  if (!interval && rows.series().contains(kHostSeriesKey)) interval = median_interval_s(rows, kHostSeriesKey);
  // One sample says nothing of the period; 1 s is what gputop.py used.
  run.interval_s = interval.value_or(1.0);
  return run;
}

void RunBuilder::write(const std::string& name, ImportNotes& notes, RunSink& sink) {
  warn_out_of_range(notes);
  times_.settle(notes);
  Rows rows(spill_, times_);
  RunShape shape;
  std::map<int, MetricSet> never_read;  // per GPU: metrics whose zeros mean "not read"
  const std::vector<DeviceInfo> devices = device_infos(rows, shape, never_read);
  RunInfo run = run_info(name, rows, devices);
  sink.begin(run, devices, shape);
  rows.visit([&](const SpilledRecord& r, std::int64_t mono, std::int64_t wall) {
    switch (r.tag) {
      case RecordTag::Device: {
        DeviceSample s{r.device, {mono, wall}, r.device_values};
        const MetricSet& never = never_read[r.device];
        for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
          if (never.test(m)) s.values.clear(static_cast<DeviceMetric>(m));
        }
        sink.device(s);
        break;
      }
      case RecordTag::Host: sink.host(HostSample{{mono, wall}, r.host_values, r.cores}); break;
      case RecordTag::Event:
        sink.event(Event{{mono, wall}, r.device >= 0 ? std::optional(r.device) : std::nullopt, r.kind, r.message});
        break;
      case RecordTag::Process: sink.process(r.process); break;
    }
  });
}

RunData RunBuilder::build(const std::string& name, ImportNotes& notes) {
  RunData data;
  ColumnsSink sink(data);
  write(name, notes, sink);
  return data;
}

}  // namespace gpuwatch
