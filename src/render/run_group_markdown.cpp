#include "render/run_group.h"
#include "render/run_group_tables.h"

namespace gpuwatch {

std::string render_run_group_markdown(const RunGroup& g) {
  using namespace run_group_tables;
  std::string out = "## " + heading(g) + "\n\n";
  out += render_markdown_table(runs_table(g));
  if (!g.extremes.empty()) {
    out += "\n### Lowest and highest\n\n";
    out += "Better: which of the two is the better one, where one is.\n\n";
    out += render_markdown_table(extremes_table(g));
  }
  if (!g.repeats.empty()) {
    out += "\n### Repeats averaged (runs with the same name)\n\n";
    out += render_markdown_table(repeats_table(g));
  }
  if (!g.left_out.empty()) {
    out.append("\n### Left out\n\n").append(left_out_title(g)).append(".\n\n");
    out += render_markdown_table(left_out_table(g));
  }
  out.append("\n").append(legend(g)).append("\n");  // not "\n" + ...: GCC 12's false -Wrestrict
  return out;
}

}  // namespace gpuwatch
