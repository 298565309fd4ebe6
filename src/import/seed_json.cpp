#include "import/seed_json.h"

#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/iso_time.h"
#include "import/json_elements.h"
#include "import/json_values.h"
#include "import/limits.h"
#include "import/names.h"
#include "core/slow_carry.h"
#include "core/bytes.h"

namespace gpuwatch {

namespace {

namespace dom = simdjson::dom;

// Scalar per-GPU fields and their factor to gpuwatch's stored unit.
struct ScalarField {
  std::string_view key;
  DeviceMetric metric;
  double to_stored;
};
constexpr std::array<ScalarField, 7> kScalarFields{{
    {"utilization", DeviceMetric::GpuUtilPercent, 1},
    {"memory_used", DeviceMetric::MemUsedBytes, kMiB},
    {"memory_total", DeviceMetric::MemTotalBytes, kMiB},
    {"power", DeviceMetric::PowerWatts, 1},
    {"power_limit", DeviceMetric::PowerLimitWatts, 1},
    {"temperature", DeviceMetric::TempGpuCelsius, 1},
    {"fan_speed", DeviceMetric::FanPercent, 1},
}};

// gputop.py read these as 0 when the driver did not answer; no running GPU
// has 0 W of power, 0 W of limit or 0 MiB of memory.
bool zero_means_unread(DeviceMetric m) {
  return m == DeviceMetric::PowerWatts || m == DeviceMetric::PowerLimitWatts || m == DeviceMetric::MemTotalBytes;
}

// Names of gputop.py's dicts, lowercased, in order of preference: NVIDIA
// "GPU"; AMD hwmon labels "Edge", "Junction", "Memory", "Hotspot"; Jetson
// thermal zones "GPU", "CPU", ...; clocks "gpu"/"memory" (NVIDIA) and the
// amdgpu DPM names "sclk"/"mclk".
struct NamedSource {
  DeviceMetric metric;
  std::array<std::string_view, 4> names;  // "" pads
};
// A junction sensor is also the GPU temperature of a card without an edge
// sensor (MI300X), as the amdgpu backend reads it.
constexpr std::array<NamedSource, 3> kTemperatureSensors{{
    {DeviceMetric::TempGpuCelsius, {"gpu", "edge", "junction", "hotspot"}},
    {DeviceMetric::TempMemCelsius, {"memory", "mem", "", ""}},
    {DeviceMetric::TempJunctionCelsius, {"junction", "hotspot", "", ""}},
}};
constexpr std::array<NamedSource, 2> kClocks{{
    {DeviceMetric::SmClockMhz, {"gpu", "sclk", "graphics", "sm"}},
    {DeviceMetric::MemClockMhz, {"memory", "mclk", "mem", ""}},
}};

// Rank of `name` among a source's names (lower is preferred), or nullopt.
std::optional<std::size_t> rank_in(const NamedSource& source, std::string_view name) {
  const std::string lower = ascii_lowercase(name);
  for (std::size_t r = 0; r < source.names.size(); ++r) {
    if (!source.names[r].empty() && source.names[r] == lower) return r;
  }
  return std::nullopt;
}

// For each source, the preferred entry of `dict` that `value` can read;
// entries no source takes are noted as not kept ("<what> <name>") unless
// `what` is empty.
template <std::size_t N, typename ValueFn>
void read_named(dom::object dict, const std::array<NamedSource, N>& sources, std::string_view what,
                DeviceValues& values, ImportNotes& notes, ValueFn value) {
  std::array<std::optional<std::size_t>, N> best_rank;
  for (auto [key, element] : dict) {
    const std::optional<double> v = value(element);
    if (!v) continue;
    bool taken = false;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      const auto rank = rank_in(sources[s], key);
      if (!rank) continue;
      taken = true;
      if (!best_rank[s] || *rank < *best_rank[s]) {
        best_rank[s] = rank;
        values.set(sources[s].metric, *v);
      }
    }
    if (!taken && !what.empty()) notes.not_kept(fmt::format("{} {}", what, key));
  }
  if (what.empty()) return;
  // A sensor that lost to a preferred one everywhere it could go is not
  // kept either (junction beside edge still is the junction temperature).
  for (auto [key, element] : dict) {
    bool lost = false;
    bool kept = false;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      const auto rank = rank_in(sources[s], key);
      if (!rank || !best_rank[s]) continue;
      (*rank > *best_rank[s] ? lost : kept) = true;
    }
    if (lost && !kept) notes.not_kept(fmt::format("{} {}", what, key));
  }
}

// The highest frequency of gputop.py's clock_states ([[state, MHz], ...]).
std::optional<double> highest_state(dom::element states, ImportNotes& notes) {
  dom::array list;
  if (states.get(list) != simdjson::SUCCESS) return std::nullopt;
  std::optional<double> best;
  for (dom::element state : list) {
    dom::array pair;
    std::optional<double> mhz;
    if (state.get(pair) == simdjson::SUCCESS) {
      if (pair.size() == 2) mhz = number_of(pair.at(1).value_unsafe(), notes);
    } else {
      mhz = number_of(state, notes);
    }
    if (mhz && *mhz > 0 && (!best || *mhz > *best)) best = mhz;
  }
  return best;
}

struct GpuFields {
  int index = 0;
  std::string_view name;
  std::string_view type;
  DeviceValues values;
  bool gputop = false;  // had gputop.py's `temperatures` dict
};

// A name of the GPU object, no longer than a name may be (limits.h); `entry`
// is its place in a multi-GPU tick.
std::string_view gpu_text(dom::object gpu, std::string_view key, std::optional<int> entry, const ImportNotes& notes) {
  const std::string_view value = string_field(gpu, key);
  if (value.size() <= kMaxNameBytes) return value;
  return checked_name(value, entry ? fmt::format("multi_gpu_data[{}].{}", *entry, key) : std::string(key), notes);
}

// One GPU's fields; nullopt (with the reason) when the object has none.
// `entry`: its place in a multi-GPU tick, also its index unless it says one.
std::optional<GpuFields> read_gpu(dom::object gpu, std::optional<int> entry, ImportNotes& notes,
                                  std::string_view& why) {
  GpuFields out;
  out.index = entry.value_or(0);
  if (const auto index = field(gpu, "gpu_index"); index && !index->is_null()) {
    const auto v = gpu_index_of(*index, notes);
    if (!v) {
      why = "with a gpu_index that is not an index from 0 to 1023";
      return std::nullopt;
    }
    out.index = *v;
  }
  out.name = gpu_text(gpu, "gpu_name", entry, notes);
  out.type = gpu_text(gpu, "gpu_type", entry, notes);
  const auto temperatures = object_field(gpu, "temperatures");
  out.gputop = temperatures.has_value();

  bool any_field = out.gputop;
  for (const ScalarField& f : kScalarFields) {
    const auto element = field(gpu, f.key);
    if (!element) continue;
    any_field = true;
    const auto v = number_of(*element, notes);
    if (!v || (out.gputop && zero_means_unread(f.metric) && *v <= 0)) continue;
    if (const double stored = *v * f.to_stored; std::isfinite(stored)) {
      out.values.set(f.metric, stored);
    } else {
      ++notes.unreadable_values;  // MiB beyond the range of bytes
    }
  }
  if (!any_field) {
    why = "without any GPU field (utilization, memory_used, power, temperature, ...)";
    return std::nullopt;
  }
  // Without the total, gputop.py had not read memory at all.
  if (out.gputop && !out.values.has(DeviceMetric::MemTotalBytes)) out.values.clear(DeviceMetric::MemUsedBytes);

  auto positive = [&notes](dom::element e) -> std::optional<double> {
    const auto v = number_of(e, notes);
    return v && *v > 0 ? v : std::nullopt;  // gputop.py's 0: not read
  };
  if (temperatures) read_named(*temperatures, kTemperatureSensors, "temperature", out.values, notes, positive);
  if (const auto clocks = object_field(gpu, "clocks")) {
    read_named(*clocks, kClocks, "clock", out.values, notes, positive);
  }
  if (const auto states = object_field(gpu, "clock_states")) {
    std::array<NamedSource, 2> maxima = kClocks;
    maxima[0].metric = DeviceMetric::SmClockMaxMhz;
    maxima[1].metric = DeviceMetric::MemClockMaxMhz;
    // Their clocks are noted already.
    read_named(*states, maxima, "", out.values, notes,
               [&notes](dom::element e) { return highest_state(e, notes); });
  }
  if (const auto limits = object_field(gpu, "temp_limits"); limits && limits->size() > 0) {
    notes.not_kept("temp_limits");
  }
  if (const std::string_view level = string_field(gpu, "performance_level"); !level.empty() && level != "unknown") {
    notes.not_kept("performance_level");
  }
  // A temperature gpuwatch's export repeated from an earlier read.
  if (true_field(gpu, kSlowValuesCarriedField)) drop_carried_slow_values(out.values);
  return out;
}

class SeedImporter {
 public:
  SeedImporter(RunBuilder& builder, ImportNotes& notes) : builder_(builder), notes_(notes) {}

  void element(std::string_view raw) {
    notes_.at("element", ++elements_);
    const auto parsed = parser_.parse(raw, notes_);
    if (!parsed) return notes_.drop("not valid JSON");
    dom::object object;
    if (parsed->get(object) != simdjson::SUCCESS) return notes_.drop("not JSON objects");
    const auto wall_ns = parse_iso_time_ns(string_field(object, "timestamp"));
    if (!wall_ns) return notes_.drop("without a readable timestamp");
    const auto elapsed_s = number_field(object, "elapsed_seconds", notes_);

    std::vector<GpuFields> gpus;
    std::string_view why;
    if (const auto ticks = field(object, "multi_gpu_data")) {
      multi_ = true;
      dom::array entries;
      if (ticks->get(entries) == simdjson::SUCCESS) {
        int position = 0;
        for (dom::element entry : entries) {
          dom::object gpu;
          std::optional<GpuFields> read;
          if (entry.get(gpu) == simdjson::SUCCESS) read = read_gpu(gpu, position, notes_, why);
          if (read) {
            gpus.push_back(*read);
          } else {
            ++bad_entries_;
          }
          ++position;
        }
      }
      if (gpus.empty()) return notes_.drop("multi-GPU ticks without a usable GPU entry");
    } else if (auto gpu = read_gpu(object, std::nullopt, notes_, why)) {
      gpus.push_back(*gpu);
    } else {
      return notes_.drop(why);
    }

    const std::size_t time = builder_.add_time(*wall_ns, elapsed_s);
    for (const GpuFields& gpu : gpus) {
      gputop_ = gputop_ || gpu.gputop;
      builder_.add_device_sample(time, gpu.index, gpu.values);
      builder_.describe_device(gpu.index, gpu.name, vendor_from(gpu.type, gpu.name));
    }
    if (const auto metadata = field(object, "training_metadata"); metadata && !metadata->is_null()) {
      training_metadata(*metadata, time);
    }
    notes_.read();
  }

  // The wrapper's `epoch`, `phase` and `step` become the annotations
  // `record` stores (an epoch or phase each time it changes), so that the
  // report's epoch and phase tables and the plots' markers have them; the
  // whole object is a mark when anything else in it changed (attached once
  // per run by the wrapper: repeated copies say nothing new).
  void training_metadata(dom::element metadata, std::size_t time) {
    std::string rest = simdjson::minify(metadata);
    dom::object fields;
    if (metadata.get(fields) == simdjson::SUCCESS) {
      rest.clear();
      for (auto [key, value] : fields) {
        if (key == "epoch" || key == "step") {
          progress(time, key, value);
        } else if (key == "phase") {
          std::string_view phase;
          if (value.get(phase) == simdjson::SUCCESS && phase.size() <= kMaxNameBytes) changed(time, "phase", phase);
        } else if (key != "batch") {  // the batch within the epoch: a step counter that restarts
          rest += fmt::format("{}={};", key, simdjson::minify(value));
        }
      }
    }
    if (rest != last_metadata_) builder_.add_event(time, std::nullopt, "mark", simdjson::minify(metadata));
    last_metadata_ = std::move(rest);
  }

  void progress(std::size_t time, std::string_view kind, dom::element value) {
    double v = 0;
    if (value.get(v) != simdjson::SUCCESS || !std::isfinite(v) || v < 0 || v != std::floor(v) || v > 9e15) return;
    changed(time, kind, fmt::format("{}", static_cast<std::int64_t>(v)));
  }

  // An event of `kind` when its message differs from the one before.
  void changed(std::size_t time, std::string_view kind, std::string_view message) {
    std::string& last = last_progress_[kind == "epoch" ? 0 : kind == "phase" ? 1 : 2];
    if (message == last) return;
    builder_.add_event(time, std::nullopt, kind, message);
    last = std::string(message);
  }

  std::string finish() {
    if (bad_entries_) {
      notes_.warn(fmt::format("{} GPU entr{} inside multi-GPU ticks had no usable GPU fields and were skipped",
                              bad_entries_, bad_entries_ == 1 ? "y" : "ies"));
    }
    if (gputop_) builder_.absent_when_always_zero(DeviceMetric::FanPercent);
    return fmt::format("{}{}json", gputop_ ? "gputop-" : "", multi_ ? "multi-" : "");
  }

 private:
  RunBuilder& builder_;
  ImportNotes& notes_;
  ElementParser parser_;
  std::size_t elements_ = 0;
  bool multi_ = false;
  bool gputop_ = false;
  std::size_t bad_entries_ = 0;
  std::string last_metadata_;
  std::array<std::string, 3> last_progress_;  // epoch, phase, step
};

}  // namespace

std::string import_seed_json(TextSource& in, RunBuilder& builder, ImportNotes& notes) {
  SeedImporter importer(builder, notes);
  const ArrayScan scan = scan_json_array(in, [&importer](std::string_view element) { importer.element(element); });
  if (scan.partial_element) notes.drop("cut off by the end of the file");
  if (!scan.closed && !scan.partial_element && scan.garbage_offset == kNoPosition) {
    notes.warn("the file ends without the array's closing ']' (it was cut off while being written)");
  }
  if (scan.garbage_offset != kNoPosition) {
    notes.warn(fmt::format("ignored {} byte{} at offset {} that are not array elements", scan.garbage_bytes,
                           scan.garbage_bytes == 1 ? "" : "s", scan.garbage_offset));
  }
  return importer.finish();
}

}  // namespace gpuwatch
