// Advisories as text and JSON (docs/advisor.md). Text: one line per
// advisory, then an indented evidence line and a suggestion line:
//
//   [warning] util.input_bound GPU 0: utilization 3 % over 60 s with 21 idle gaps: ...
//       evidence: util_mean_percent 3 %, util_low_share_percent 100 %, ...
//       suggestion: Feed it faster: more DataLoader workers (num_workers), ...
//
// folded at 100 columns. No colour: the caller adds none either.
#pragma once

#include <span>
#include <string>

#include "analysis/advisor/advisory.h"
#include "base/json_writer.h"

namespace gpuwatch {

// Every advisory in order; empty text for none (the caller says "none" its own way).
std::string advisories_text(std::span<const Advisory> advisories);
// Appeared and changed ones in full (a changed one says "(was warning)"),
// cleared ones as one line "[cleared] memory.leak GPU 0".
std::string advisory_changes_text(std::span<const AdvisoryChange> changes);

// [ {id, severity, device (or null), summary, evidence: [{name, value, unit}], suggestion, underuse,
//    action, explains: [{id, device}], explained_by: {id, device} or null} ]
void write_advisories_json(JsonWriter& w, std::span<const Advisory> advisories);
// [ {change: "appeared"|"severity_changed"|"cleared", previous_severity (or null), and the
//    advisory's fields as above} ]
void write_advisory_changes_json(JsonWriter& w, std::span<const AdvisoryChange> changes);

// One evidence value in its unit, for people: "38 %", "30.40 GiB", "12.0 s".
std::string format_evidence_value(const Evidence& e);

}  // namespace gpuwatch
