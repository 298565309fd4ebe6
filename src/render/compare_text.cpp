#include <fmt/format.h>

#include "render/compare.h"
#include "render/compare_format.h"

namespace gpuwatch {

namespace {

// Runs per samples table: three columns each, so two runs fit 100 columns.
constexpr std::size_t kRunsPerSamplesTable = 2;

}  // namespace

std::string render_compare_text(const Comparison& c) {
  using namespace compare_format;
  std::string out;
  const std::string& a = c.runs[0].label;
  out += direction_text(c) + "\n\n";
  out += render_text_table(runs_table(c), kTextReportWidth, "  ");
  out += "\n";
  out += wrap_text(alignment_text(c), kTextReportWidth, "", "");
  out += wrap_text(method_text(c), kTextReportWidth, "", "");
  if (const Table timing = step_timing_table(c); !timing.rows.empty()) {
    out += "\nMeasured by the loop (each run's compared part): waits for data, mean step\n";
    out += render_text_table(timing, kTextReportWidth, "  ");
  }

  for (std::size_t run = 1; run < c.runs.size(); ++run) {
    out += fmt::format("\n{} relative to {}\n", c.runs[run].label, a);
    out += render_text_table(pair_table(c, run), kTextReportWidth, "  ");
    out += "\n";
    for (const MetricComparison& m : c.metrics) {
      const std::string sentence = compare_sentence(c, m, run);
      if (!sentence.empty()) out += wrap_text(sentence, kTextReportWidth, "  ", "    ");
    }
  }

  out += "\nSamples behind each mean (effective: worth that many independent samples; block: bootstrap block)\n";
  for (std::size_t first = 0; first < c.runs.size(); first += kRunsPerSamplesTable) {
    if (first > 0) out += "\n";
    out += render_text_table(samples_table(c, first, kRunsPerSamplesTable), kTextReportWidth, "  ");
  }
  if (!c.notes.empty()) {
    out += "\n";
    for (const std::string& note : c.notes) out += wrap_text("Note: " + note, kTextReportWidth, "", "  ");
  }
  return out;
}

std::string render_compare(const Comparison& comparison, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return render_compare_json(comparison);
    case OutputFormat::markdown: return render_compare_markdown(comparison);
    default: return render_compare_text(comparison);
  }
}

}  // namespace gpuwatch
