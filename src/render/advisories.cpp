#include "render/advisories.h"

#include <cmath>

#include <fmt/format.h>

#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

std::string whole_or_one_decimal(double v) {
  return std::abs(v - std::round(v)) < 0.05 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

std::string head(const Advisory& a, std::string_view tag) {
  std::string s = fmt::format("[{}] {}", tag, a.id);
  if (a.device_index) s += fmt::format(" GPU {}", *a.device_index);
  return s;
}

std::string block(const Advisory& a, std::string_view tag, std::string_view note = {}) {
  const std::string cause = a.explained_by ? fmt::format(" (explained by {})", to_string(*a.explained_by)) : "";
  std::string out =
      wrap_text(fmt::format("{}{}{}: {}", head(a, tag), note, cause, a.summary), kTextReportWidth, "", "    ");
  if (!a.evidence.empty()) {
    std::string evidence = "evidence:";
    for (std::size_t i = 0; i < a.evidence.size(); ++i) {
      evidence += fmt::format("{} {} {}", i == 0 ? "" : ",", a.evidence[i].name, format_evidence_value(a.evidence[i]));
    }
    out += wrap_text(evidence, kTextReportWidth, "    ", "      ");
  }
  if (!a.suggestion.empty()) out += wrap_text("suggestion: " + a.suggestion, kTextReportWidth, "    ", "      ");
  if (!a.explains.empty()) {
    std::string explains = "explains:";
    for (std::size_t i = 0; i < a.explains.size(); ++i) explains += (i == 0 ? " " : ", ") + to_string(a.explains[i]);
    out += wrap_text(explains, kTextReportWidth, "    ", "      ");
  }
  return out;
}

void write_fields(JsonWriter& w, const Advisory& a) {
  w.field("id", a.id);
  w.field("severity", to_string(a.severity));
  w.field("gpu", a.device_index);
  w.field("summary", a.summary);
  w.key("evidence").begin_array();
  for (const Evidence& e : a.evidence) {
    w.begin_object();
    w.field("name", e.name);
    w.field("value", e.value);
    w.field("unit", e.unit);
    w.end_object();
  }
  w.end_array();
  w.field("suggestion", a.suggestion);
  w.field("underuse", a.underuse);
  w.field("action", a.action);
  auto write_ref = [&w](const AdvisoryRef& r) {
    w.begin_object();
    w.field("id", r.id);
    w.field("gpu", r.device_index);
    w.end_object();
  };
  w.key("explains").begin_array();
  for (const AdvisoryRef& r : a.explains) write_ref(r);
  w.end_array();
  w.key("explained_by");
  if (a.explained_by) {
    write_ref(*a.explained_by);
  } else {
    w.null();
  }
}

}  // namespace

std::string format_evidence_value(const Evidence& e) {
  const double v = e.value;
  if (e.unit == "percent") return whole_or_one_decimal(v) + " %";
  if (e.unit == "bytes") return human_bytes(v);
  if (e.unit == "bytes_per_second") return human_bytes(v) + "/s";
  if (e.unit == "bytes_per_minute") return human_bytes(v) + "/min";
  // A step of 0.040 s must not read "0.0 s" (step_time_s).
  if (e.unit == "seconds") return v < 1 ? fmt::format("{:.3f} s", v) : fmt::format("{:.1f} s", v);
  if (e.unit == "count" || e.unit == "gen") return fmt::format("{:.0f}", v);
  if (e.unit == "lanes") return fmt::format("x{:.0f}", v);
  if (e.unit == "gpu") return fmt::format("GPU {:.0f}", v);
  if (e.unit == "watts") return fmt::format("{:.0f} W", v);
  if (e.unit == "celsius") return fmt::format("{:.0f} °C", v);
  if (e.unit == "params") {
    if (v >= 1e9) return fmt::format("{:.1f} G", v / 1e9);
    if (v >= 1e6) return fmt::format("{:.1f} M", v / 1e6);
    return fmt::format("{:.0f}", v);
  }
  return e.unit.empty() ? fmt::format("{:g}", v) : fmt::format("{:g} {}", v, e.unit);
}

std::string advisories_text(std::span<const Advisory> advisories) {
  std::string out;
  for (const Advisory& a : advisories) out += block(a, to_string(a.severity));
  return out;
}

std::string advisory_changes_text(std::span<const AdvisoryChange> changes) {
  std::string out;
  for (const AdvisoryChange& c : changes) {
    switch (c.kind) {
      case ChangeKind::Appeared:
        out += block(c.advisory, to_string(c.advisory.severity));
        break;
      case ChangeKind::SeverityChanged:
        out += block(c.advisory, to_string(c.advisory.severity),
                     c.previous_severity ? fmt::format(" (was {})", to_string(*c.previous_severity)) : "");
        break;
      case ChangeKind::Cleared:
        out += head(c.advisory, "cleared") + "\n";
        break;
    }
  }
  return out;
}

void write_advisories_json(JsonWriter& w, std::span<const Advisory> advisories) {
  w.begin_array();
  for (const Advisory& a : advisories) {
    w.begin_object();
    write_fields(w, a);
    w.end_object();
  }
  w.end_array();
}

void write_advisory_changes_json(JsonWriter& w, std::span<const AdvisoryChange> changes) {
  w.begin_array();
  for (const AdvisoryChange& c : changes) {
    w.begin_object();
    w.field("change", to_string(c.kind));
    w.key("previous_severity");
    if (c.previous_severity) {
      w.value(to_string(*c.previous_severity));
    } else {
      w.null();
    }
    write_fields(w, c.advisory);
    w.end_object();
  }
  w.end_array();
}

}  // namespace gpuwatch
