#include <fmt/format.h>

#include "render/compare.h"
#include "render/compare_format.h"

namespace gpuwatch {

std::string render_compare_markdown(const Comparison& c) {
  using namespace compare_format;
  std::string out = "## " + direction_text(c) + "\n\n";
  out += render_markdown_table(runs_table(c));
  // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "\n" + a temporary.
  out.append("\n").append(alignment_text(c)).append("\n\n").append(method_text(c)).append("\n");
  if (const Table timing = step_timing_table(c); !timing.rows.empty()) {
    out += "\n### Measured by the loop\n\nEach run's compared part: waits for data, mean step.\n\n";
    out += render_markdown_table(timing);
  }
  for (std::size_t run = 1; run < c.runs.size(); ++run) {
    out += fmt::format("\n### {} relative to {}\n\n", c.runs[run].label, c.runs[0].label);
    out += render_markdown_table(pair_table(c, run));
    out += "\n";
    for (const MetricComparison& m : c.metrics) {
      const std::string sentence = compare_sentence(c, m, run);
      if (!sentence.empty()) out += "- " + sentence + "\n";
    }
  }
  out += "\n### Samples behind each mean\n\n";
  out += "Effective: worth that many independent samples. Block: the bootstrap's block length.\n\n";
  out += render_markdown_table(samples_table(c, 0, c.runs.size()));
  if (!c.notes.empty()) {
    out += "\n";
    for (const std::string& note : c.notes) out += "> Note: " + note + "\n\n";
  }
  return out;
}

}  // namespace gpuwatch
