// What the advisor says about a run: advisories with a stable id, a
// severity, the numbers behind them and what to do. The ids are a contract
// (scripts and agents key on them); docs/advisor.md lists every one.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

enum class Severity { Info, Warning, Critical };
std::string_view to_string(Severity severity);  // "info", "warning", "critical"

// One number behind an advisory. Units are words: "percent", "bytes",
// "seconds", "count", "bytes_per_second", "bytes_per_minute", "params",
// "watts", "celsius", "gen", "lanes".
struct Evidence {
  std::string name;
  double value = 0;
  std::string unit;
};

// An advisory named by its key: id and GPU ("util.input_bound GPU 0").
struct AdvisoryRef {
  std::string id;
  std::optional<int> device_index;
  friend bool operator==(const AdvisoryRef&, const AdvisoryRef&) = default;
};
std::string to_string(const AdvisoryRef& ref);  // "util.input_bound GPU 0", "balance.imbalance"

struct Advisory {
  std::string id;  // "memory.batch_too_small", ...
  Severity severity = Severity::Info;
  std::optional<int> device_index;  // none: about the run as a whole
  std::string summary;              // what was seen, one sentence, without the GPU's name
  std::vector<Evidence> evidence;
  std::string suggestion;           // what to do, one sentence
  // The run wastes its GPUs (low utilization of any cause, a batch too
  // small): what `record --on-underuse kill` acts on.
  bool underuse = false;
  // The next thing to do, one word for an agent (next_action()): "feed_faster", ...
  std::string action{};
  // The causal model (analysis/advisor/causes.h): what this advisory
  // explains, and what explains it. An explained one is a consequence: its
  // fix waits for its cause's.
  std::vector<AdvisoryRef> explains{};
  std::optional<AdvisoryRef> explained_by{};
};

// How the advisories moved between two evaluations, keyed by (id, device).
enum class ChangeKind { Appeared, SeverityChanged, Cleared };
std::string_view to_string(ChangeKind kind);  // "appeared", "severity_changed", "cleared"

struct AdvisoryChange {
  ChangeKind kind = ChangeKind::Appeared;
  Advisory advisory;  // the new one; for Cleared, the old one
  std::optional<Severity> previous_severity;  // SeverityChanged only
};

// Appeared and changed in the order of `current`, then cleared in the order
// of `previous`. An advisory whose numbers moved but whose severity did not
// is no change: the lead prints only what a reader needs to act on.
std::vector<AdvisoryChange> diff_advisories(std::span<const Advisory> previous, std::span<const Advisory> current);

}  // namespace gpuwatch
