#include "analysis/advisor/config.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "core/lines.h"

namespace gpuwatch {

std::string_view to_string(ModelSize size) {
  switch (size) {
    case ModelSize::Auto: return "auto";
    case ModelSize::Small: return "small";
    case ModelSize::Large: return "large";
  }
  return "auto";
}

namespace {

// What a key accepts. Percent: 0..100. Count: a whole number >= 1.
// Seconds: above 0 and at most kMaxSeconds; SecondsOrZero: 0 too.
enum class Range { Positive, NonNegative, Percent, Count, Seconds, SecondsOrZero, Word };

// About 116 days: longer than any run, and far from where seconds as
// nanoseconds leave an int64 (9.2e9 s), which the loaders' spans compute.
constexpr double kMaxSeconds = 1e7;

using Member = std::variant<double AdvisorConfig::*, int AdvisorConfig::*, ModelSize AdvisorConfig::*>;

struct Key {
  std::string_view name;
  Member member;
  Range range;
  std::string_view help;
};

// One row per key, in the order the file is printed: the parser, the checks
// and the printed file cannot disagree.
const std::array kKeys{
    Key{"window_s", &AdvisorConfig::window_s, Range::Seconds, "Seconds of samples the rules look at."},
    Key{"warmup_s", &AdvisorConfig::warmup_s, Range::SecondsOrZero,
        "No memory or utilization verdict before the run is this old (seconds)."},
    Key{"model_size", &AdvisorConfig::model_size, Range::Word,
        "auto | small | large. auto: from the model_params annotation, else unknown."},
    Key{"large_model_params", &AdvisorConfig::large_model_params, Range::Positive,
        "A model with at least this many parameters counts as large (a rough line)."},
    Key{"memory_low_percent", &AdvisorConfig::memory_low_percent, Range::Percent,
        "Memory p95 below this % of the device: the batch is too small, try about 2x."},
    Key{"memory_good_percent", &AdvisorConfig::memory_good_percent, Range::Percent,
        "Between low and this %: a large model's batch could grow about 1.5x."},
    Key{"memory_high_percent", &AdvisorConfig::memory_high_percent, Range::Percent,
        "Above this %: near out-of-memory."},
    Key{"util_low_percent", &AdvisorConfig::util_low_percent, Range::Percent,
        "Utilization below this % (window mean) is low."},
    Key{"util_low_share_percent", &AdvisorConfig::util_low_share_percent, Range::Percent,
        "... and below it for at least this % of the window: sustained."},
    Key{"input_idle_gaps", &AdvisorConfig::input_idle_gaps, Range::Count,
        "This many idle gaps in the window make low utilization input-bound."},
    Key{"input_tree_cpu_percent", &AdvisorConfig::input_tree_cpu_percent, Range::NonNegative,
        "... as does the process tree's CPU at this % of one core."},
    Key{"input_read_mib_per_s", &AdvisorConfig::input_read_mib_per_s, Range::NonNegative,
        "... or its storage reads at this many MiB/s."},
    Key{"host_cpu_percent", &AdvisorConfig::host_cpu_percent, Range::Percent,
        "Low utilization with the whole host's CPU at this %: host-bound."},
    Key{"data_wait_warning_percent", &AdvisorConfig::data_wait_warning_percent, Range::Percent,
        "The training loop waits for data above this % of each step (measured by the client): input-bound."},
    Key{"data_wait_critical_percent", &AdvisorConfig::data_wait_critical_percent, Range::Percent,
        "... above this %: critical. Below the warning share the loop does not wait: not input-bound."},
    Key{"data_wait_min_steps", &AdvisorConfig::data_wait_min_steps, Range::Count,
        "The measured share counts once the window holds this many timed steps."},
    Key{"leak_min_epochs", &AdvisorConfig::leak_min_epochs, Range::Count,
        "A leak needs this many completed epochs in a row with growing peak memory."},
    Key{"leak_epoch_growth_mib", &AdvisorConfig::leak_epoch_growth_mib, Range::NonNegative,
        "... each peak above the one before by more than this (MiB)."},
    Key{"leak_total_growth_percent", &AdvisorConfig::leak_total_growth_percent, Range::Percent,
        "... and all of them by more than this % of the device memory."},
    Key{"growing_min_percent", &AdvisorConfig::growing_min_percent, Range::Percent,
        "Without epochs: memory growth in the window above this % of the device..."},
    Key{"growing_min_mib_per_min", &AdvisorConfig::growing_min_mib_per_min, Range::NonNegative,
        "... at a trend of at least this many MiB per minute."},
    Key{"drop_min_percent", &AdvisorConfig::drop_min_percent, Range::Percent,
        "A sudden drop of at least this % of the device memory is reported."},
    Key{"throttle_power_percent", &AdvisorConfig::throttle_power_percent, Range::Percent,
        "Power throttling for at least this % of the sampled time."},
    Key{"throttle_thermal_percent", &AdvisorConfig::throttle_thermal_percent, Range::Percent,
        "Thermal throttling for at least this % of the sampled time."},
    Key{"imbalance_cv_percent", &AdvisorConfig::imbalance_cv_percent, Range::NonNegative,
        "Per-GPU mean utilization spread (CV, %) at least this: imbalance."},
    Key{"straggler_gap_percent", &AdvisorConfig::straggler_gap_percent, Range::Percent,
        "One GPU's utilization this many points from the others' mean: a straggler."},
    Key{"pcie_degraded_percent", &AdvisorConfig::pcie_degraded_percent, Range::Percent,
        "PCIe link below its maximum for at least this % of the busy time."},
    Key{"pcie_min_busy_s", &AdvisorConfig::pcie_min_busy_s, Range::SecondsOrZero,
        "... judged only after this many busy seconds in the window."},
    Key{"launch_bound_util_percent", &AdvisorConfig::launch_bound_util_percent, Range::Percent,
        "Launch-bound (needs SM activity, GPM): utilization at least this % (window mean)..."},
    Key{"launch_bound_sm_share_percent", &AdvisorConfig::launch_bound_sm_share_percent, Range::Percent,
        "... with the SMs active less than this % of the utilization."},
    Key{"tensor_idle_sm_active_percent", &AdvisorConfig::tensor_idle_sm_active_percent, Range::Percent,
        "Tensor cores idle: SMs active at least this %..."},
    Key{"tensor_idle_fp32_percent", &AdvisorConfig::tensor_idle_fp32_percent, Range::Percent,
        "... the FP32 pipes busy at least this %..."},
    Key{"tensor_idle_max_percent", &AdvisorConfig::tensor_idle_max_percent, Range::Percent,
        "... and the tensor cores busy less than this %."},
    Key{"collective_wait_util_percent", &AdvisorConfig::collective_wait_util_percent, Range::Percent,
        "A GPU of 2+ waiting in a collective (needs SM activity): utilization at least this %..."},
    Key{"collective_wait_sm_share_percent", &AdvisorConfig::collective_wait_sm_share_percent, Range::Percent,
        "... its SMs active below this % of it, and a peer less busy by straggler_gap_percent..."},
    Key{"collective_wait_peer_sm_excess_percent", &AdvisorConfig::collective_wait_peer_sm_excess_percent,
        Range::NonNegative, "... or a peer as busy whose SMs are active at least this % more."},
    Key{"link_silent_mib_per_s", &AdvisorConfig::link_silent_mib_per_s, Range::NonNegative,
        "NVLink and PCIe traffic (tx + rx) below this many MiB/s count as silent."},
    Key{"hang_after_s", &AdvisorConfig::hang_after_s, Range::Seconds,
        "The job's GPUs in a collective with no progress for longer than this (seconds): job.hung."},
};

constexpr int kMaxCount = 1'000'000;

// A value as it appears in a message: short, and printable.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 40) out += "...";
  return out + "'";
}

[[noreturn]] void fail(std::size_t line, const std::string& what) {
  throw AdvisorConfigError(fmt::format("line {}: {}", line, what));
}

double parse_number(std::string_view text, const Key& key, std::size_t line) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    fail(line, fmt::format("{} is not a number (for {})", quoted(text), key.name));
  }
  return v;
}

void check_range(double v, const Key& key, std::size_t line) {
  switch (key.range) {
    case Range::Positive:
      if (v <= 0) fail(line, fmt::format("{} must be above 0 (got {})", key.name, v));
      break;
    case Range::NonNegative:
      if (v < 0) fail(line, fmt::format("{} must not be negative (got {})", key.name, v));
      break;
    case Range::Percent:
      if (v < 0 || v > 100) fail(line, fmt::format("{} must be between 0 and 100 (got {})", key.name, v));
      break;
    case Range::Seconds:
      if (v <= 0 || v > kMaxSeconds) {
        fail(line, fmt::format("{} must be above 0 and at most {:.0f} (got {})", key.name, kMaxSeconds, v));
      }
      break;
    case Range::SecondsOrZero:
      if (v < 0 || v > kMaxSeconds) {
        fail(line, fmt::format("{} must be from 0 to {:.0f} (got {})", key.name, kMaxSeconds, v));
      }
      break;
    case Range::Count:
      if (v < 1 || v > kMaxCount || v != std::floor(v)) {
        fail(line, fmt::format("{} must be a whole number from 1 to {} (got {})", key.name, kMaxCount, v));
      }
      break;
    case Range::Word:
      break;
  }
}

ModelSize parse_model_size(std::string_view text, std::size_t line) {
  for (ModelSize s : {ModelSize::Auto, ModelSize::Small, ModelSize::Large}) {
    if (text == to_string(s)) return s;
  }
  fail(line, fmt::format("model_size must be auto, small or large (got {})", quoted(text)));
}

void assign(AdvisorConfig& config, const Key& key, std::string_view text, std::size_t line) {
  if (const auto* word = std::get_if<ModelSize AdvisorConfig::*>(&key.member)) {
    config.*(*word) = parse_model_size(text, line);
    return;
  }
  const double v = parse_number(text, key, line);
  check_range(v, key, line);
  if (const auto* real = std::get_if<double AdvisorConfig::*>(&key.member)) {
    config.*(*real) = v;
  } else {
    config.*std::get<int AdvisorConfig::*>(key.member) = static_cast<int>(v);
  }
}

std::string value_text(const AdvisorConfig& config, const Key& key) {
  return std::visit(
      [&](auto member) -> std::string {
        if constexpr (std::is_same_v<decltype(member), ModelSize AdvisorConfig::*>) {
          return std::string(to_string(config.*member));
        } else {
          return fmt::format("{}", config.*member);
        }
      },
      key.member);
}

std::size_t key_index(std::string_view name) {
  const auto it = std::find_if(kKeys.begin(), kKeys.end(), [&](const Key& k) { return k.name == name; });
  return static_cast<std::size_t>(it - kKeys.begin());
}

// low < good < high: a matrix whose bands overlap says nothing. The message
// goes to the line that set the later of the two keys.
void check_order(const AdvisorConfig& c, const std::array<std::size_t, kKeys.size()>& line_of) {
  const auto pair = [&](std::string_view low, double low_v, std::string_view high, double high_v) {
    if (low_v < high_v) return;
    const std::size_t line = std::max(line_of[key_index(low)], line_of[key_index(high)]);
    fail(line, fmt::format("{} ({}) must be below {} ({})", low, low_v, high, high_v));
  };
  pair("memory_low_percent", c.memory_low_percent, "memory_good_percent", c.memory_good_percent);
  pair("memory_good_percent", c.memory_good_percent, "memory_high_percent", c.memory_high_percent);
  pair("data_wait_warning_percent", c.data_wait_warning_percent, "data_wait_critical_percent",
       c.data_wait_critical_percent);
}

}  // namespace

AdvisorConfig parse_advisor_config(std::string_view text) {
  AdvisorConfig config;
  std::array<std::size_t, kKeys.size()> line_of{};  // 0: not in the file
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    const auto newline = text.find('\n');
    std::string_view row = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    row = trimmed(row.substr(0, row.find('#')), kWhiteSpace);
    if (row.empty()) continue;
    const auto equals = row.find('=');
    if (equals == std::string_view::npos) fail(line, fmt::format("expected key = value, got {}", quoted(row)));
    const std::string_view name = trimmed(row.substr(0, equals), kWhiteSpace);
    const std::string_view value = trimmed(row.substr(equals + 1), kWhiteSpace);
    const std::size_t k = key_index(name);
    if (k == kKeys.size()) fail(line, fmt::format("unknown key {}", quoted(name)));
    if (line_of[k] != 0) fail(line, fmt::format("{} is set twice (first on line {})", name, line_of[k]));
    if (value.empty()) fail(line, fmt::format("{} has no value", name));
    assign(config, kKeys[k], value, line);
    line_of[k] = line;
  }
  check_order(config, line_of);
  return config;
}

double advisor_span_s(const AdvisorConfig& config) {
  // A margin of a few checks, so a stretch just over hang_after_s is seen whole.
  constexpr double kHangMarginS = 10;
  return std::max(config.window_s, config.hang_after_s + kHangMarginS);
}

std::string format_advisor_config(const AdvisorConfig& config) {
  std::string out =
      "# gpuwatch advisor configuration (docs/advisor.md).\n"
      "# Lines are `key = value`; `#` starts a comment; keys left out keep their defaults.\n";
  for (const Key& key : kKeys) {
    out += fmt::format("\n# {}\n{} = {}\n", key.help, key.name, value_text(config, key));
  }
  return out;
}

}  // namespace gpuwatch
