// A small document model for reports: headings, lines and tables, written
// once by a report builder and rendered as aligned text for a terminal or as
// Markdown for a pull request or notebook. Keeps the two formats from
// drifting apart and keeps layout (column widths) out of the builders.
// Every text it is given is kept terminal_safe (render/terminal_text.h).
#pragma once

#include <string>
#include <vector>

namespace gpuwatch {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Columns from this index on are numbers: right-aligned.
  std::size_t first_numeric_column = 1;
};

class Document {
 public:
  void title(std::string text);    // once, at the top; its lines are not indented
  void heading(std::string text);  // a section; its lines are indented in text
  void line(std::string text);     // a line of prose or "key  value"
  void table(TextTable table);

  // Tables indented by two spaces, columns padded to their widest cell.
  [[nodiscard]] std::string to_text() const;
  // Headings as "##", lines as list items, tables as pipe tables.
  [[nodiscard]] std::string to_markdown() const;

 private:
  enum class Kind { Title, Heading, Line, Table };
  struct Block {
    Kind kind;
    std::string text;
    TextTable table;
  };
  std::vector<Block> blocks_;
};

}  // namespace gpuwatch
