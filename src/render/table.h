// Tables for reports that compare runs: the same rows as a fixed-width text
// table (fitted to a terminal width) or as a markdown table.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/text_width.h"  // display_width: what cells are padded by

namespace gpuwatch {

// The width that text reports (comparisons, run groups, advisories) are
// folded and fitted to: one value, so that reports printed together agree.
inline constexpr std::size_t kTextReportWidth = 100;

struct TableColumn {
  std::string header;
  bool right_aligned = false;
  // May be cut (ending in "…") when the table is wider than allowed, down
  // to min_width. Names are, numbers never.
  bool shrinkable = false;
  std::size_t min_width = 8;
  // A shrinkable column whose cells are folded onto more lines instead of
  // cut: names whose distinguishing part may be anywhere ("lr=3e-4,seed=2").
  bool wrap = false;
};

struct Table {
  std::vector<TableColumn> columns;
  std::vector<std::vector<std::string>> rows;  // one cell per column
  std::size_t gap = 2;                         // spaces between text columns
};

// Columns separated by `gap` spaces, each line starting with `indent`, and at
// most `max_width` columns wide when shrinkable columns allow it. Cells are
// shown terminal_safe (render/terminal_text.h): a control character in a name
// is escaped, never acted on.
std::string render_text_table(const Table& table, std::size_t max_width = kTextReportWidth,
                              std::string_view indent = "");

// Prose folded at spaces into lines of at most `width` columns (a longer
// word stands alone), the first line starting with `first_indent`, the
// others with `indent`; ends with a newline. Shown terminal_safe.
std::string wrap_text(std::string_view text, std::size_t width, std::string_view first_indent,
                      std::string_view indent);

// A markdown table cell's text: terminal_safe, and '|' escaped.
std::string markdown_cell(const std::string& text);

// GitHub-flavoured markdown; '|' in cells is escaped.
std::string render_markdown_table(const Table& table);

}  // namespace gpuwatch
