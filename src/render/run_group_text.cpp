#include "render/run_group.h"
#include "render/run_group_tables.h"

namespace gpuwatch {

std::string render_run_group_text(const RunGroup& g) {
  using namespace run_group_tables;
  std::string out = wrap_text(heading(g), kTextReportWidth, "", "");
  out += "\n";
  out += render_text_table(runs_table(g), kTextReportWidth, "  ");
  if (!g.extremes.empty()) {
    out += "\nLowest and highest (better: which of the two is the better one, where one is)\n";
    out += render_text_table(extremes_table(g), kTextReportWidth, "  ");
  }
  if (!g.repeats.empty()) {
    out += "\nRepeats averaged (runs with the same name)\n";
    out += render_text_table(repeats_table(g), kTextReportWidth, "  ");
  }
  if (!g.left_out.empty()) {
    out.append("\n").append(wrap_text(left_out_title(g), kTextReportWidth, "", "  "));
    out += render_text_table(left_out_table(g), kTextReportWidth, "  ");
  }
  out.append("\n").append(wrap_text(legend(g), kTextReportWidth, "", ""));  // not "\n" + ...: GCC 12's false -Wrestrict
  return out;
}

std::string render_run_group(const RunGroup& group, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return render_run_group_json(group);
    case OutputFormat::markdown: return render_run_group_markdown(group);
    default: return render_run_group_text(group);
  }
}

}  // namespace gpuwatch
