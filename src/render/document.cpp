#include "render/document.h"

#include <algorithm>
#include <string_view>

#include "render/table.h"
#include "render/terminal_text.h"

#include "core/text_width.h"

namespace gpuwatch {

namespace {

// Columns, not bytes or code points: GPU and run names may be CJK or emoji.
std::size_t columns(const std::string& s) { return display_width(s); }

void pad(std::string& out, const std::string& cell, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, columns(cell)), ' ');
  out += right ? fill + cell : cell + fill;
}

// Text lines fold at spaces to this width; a word never breaks (one wider
// than the line stands alone on its line).
constexpr std::size_t kTextWidth = 100;
// A folded prose line goes on this much further in than its first line.
constexpr std::string_view kHangingIndent = "    ";

std::string folded(const std::string& text, std::string_view indent, std::string_view continuation) {
  return wrap_text(text, kTextWidth, indent, continuation);
}


}  // namespace

// Kept terminal_safe from the start: both formats measure and show the
// escaped text, and no builder can forget it.
void Document::title(std::string text) { blocks_.push_back({Kind::Title, terminal_safe(text), {}}); }
void Document::heading(std::string text) { blocks_.push_back({Kind::Heading, terminal_safe(text), {}}); }
void Document::line(std::string text) { blocks_.push_back({Kind::Line, terminal_safe(text), {}}); }
void Document::table(TextTable table) {
  for (std::string& cell : table.header) cell = terminal_safe(cell);
  for (auto& row : table.rows) {
    for (std::string& cell : row) cell = terminal_safe(cell);
  }
  blocks_.push_back({Kind::Table, {}, std::move(table)});
}

std::string Document::to_text() const {
  std::string out;
  bool in_section = false;
  for (const Block& b : blocks_) {
    switch (b.kind) {
      case Kind::Title:
      case Kind::Heading:
        if (!out.empty()) out += '\n';
        out += b.text + '\n';
        in_section = b.kind == Kind::Heading;
        break;
      case Kind::Line: {
        // Only a line too wide is folded: folding joins words with one space,
        // and "key   value" lines keep their alignment.
        const std::string indent = in_section ? "  " : "";
        out += columns(indent + b.text) <= kTextWidth ? indent + b.text + '\n'
                                                      : folded(b.text, indent, indent + std::string(kHangingIndent));
        break;
      }
      case Kind::Table: {
        const TextTable& t = b.table;
        std::vector<std::size_t> width(t.header.size(), 0);
        for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = columns(t.header[c]);
        for (const auto& row : t.rows) {
          for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], columns(row[c]));
        }
        // A text cell in the last column (an event's message) folds under
        // its own column rather than running past the width.
        const std::size_t last = width.size() - 1;
        const bool last_folds = !width.empty() && last < t.first_numeric_column;
        const auto emit = [&](const std::vector<std::string>& row) {
          std::string line = " ";
          for (std::size_t c = 0; c < width.size(); ++c) {
            line += ' ';
            const std::string& cell = c < row.size() ? row[c] : std::string();
            if (c == last && last_folds && columns(line) + columns(cell) > kTextWidth) {
              std::string text = folded(cell, line, std::string(columns(line), ' '));
              text.pop_back();  // its newline: the one below ends the row
              line = std::move(text);
              break;
            }
            pad(line, cell, width[c], c >= t.first_numeric_column);
          }
          while (!line.empty() && line.back() == ' ') line.pop_back();
          out += line + '\n';
        };
        emit(t.header);
        for (const auto& row : t.rows) emit(row);
        break;
      }
    }
  }
  return out;
}

std::string Document::to_markdown() const {
  std::string out;
  for (const Block& b : blocks_) {
    switch (b.kind) {
      case Kind::Title:
      case Kind::Heading:
        if (!out.empty()) out += '\n';
        out += (b.kind == Kind::Title ? "# " : "## ") + b.text + "\n\n";
        break;
      case Kind::Line:
        out += "- " + markdown_cell(b.text) + '\n';
        break;
      case Kind::Table: {
        const TextTable& t = b.table;
        if (!out.empty() && out.back() == '\n' && out.size() > 1 && out[out.size() - 2] != '\n') out += '\n';
        const auto emit = [&](const std::vector<std::string>& row) {
          out += '|';
          for (std::size_t c = 0; c < t.header.size(); ++c) out += ' ' + markdown_cell(c < row.size() ? row[c] : "") + " |";
          out += '\n';
        };
        emit(t.header);
        out += '|';
        for (std::size_t c = 0; c < t.header.size(); ++c) out += c >= t.first_numeric_column ? " ---: |" : " --- |";
        out += '\n';
        for (const auto& row : t.rows) emit(row);
        out += '\n';
        break;
      }
    }
  }
  return out;
}

}  // namespace gpuwatch
