#include "render/table.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core/utf8.h"
#include "render/terminal_text.h"

namespace gpuwatch {

namespace {

// The first `width` columns of `text`, with "…" as the last when cut (one
// column short when a wide character would straddle the edge; pad fills it).
std::string cut(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  if (width == 0) return {};
  return std::string(prefix_fitting(text, width - 1)) + "…";
}

// `text` in pieces of at most `width` columns, each broken after the last
// separator that leaves it at least half full, else at the width; nothing
// is left out but a space where a line breaks.
std::vector<std::string> fold(const std::string& text, std::size_t width) {
  constexpr std::string_view kBreakAfter = " ,;:/=_-.";
  std::vector<std::string> lines;
  std::string_view rest = text;
  while (display_width(rest) > width && width > 0) {
    std::string_view piece = prefix_fitting(rest, width);
    // A character wider than the column stands alone.
    if (piece.empty()) piece = rest.substr(0, std::max<std::size_t>(1, utf8_sequence_length(rest, 0)));
    const std::size_t sep = piece.find_last_of(kBreakAfter);
    if (sep != std::string_view::npos && sep + 1 < piece.size() && (sep + 1) * 2 >= piece.size()) {
      piece = piece.substr(0, sep + 1);
    }
    rest.remove_prefix(piece.size());
    if (piece.size() > 1 && piece.back() == ' ') piece.remove_suffix(1);
    lines.emplace_back(piece);
  }
  lines.emplace_back(rest);
  return lines;
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t w = display_width(text);
  const std::string fill(w < width ? width - w : 0, ' ');
  return right ? fill + text : text + fill;
}

// The header and the rows, every cell terminal_safe: escaped before it is
// measured, so that an escaped name is padded by what it shows.
std::vector<std::vector<std::string>> safe_cells(const Table& table) {
  std::vector<std::vector<std::string>> lines;
  lines.reserve(table.rows.size() + 1);
  std::vector<std::string> header;
  for (const TableColumn& col : table.columns) header.push_back(terminal_safe(col.header));
  lines.push_back(std::move(header));
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < table.columns.size(); ++c) cells.push_back(c < row.size() ? terminal_safe(row[c]) : "");
    lines.push_back(std::move(cells));
  }
  return lines;
}

}  // namespace

std::string render_text_table(const Table& table, std::size_t max_width, std::string_view indent) {
  const std::size_t n = table.columns.size();
  const auto lines = safe_cells(table);
  std::vector<std::size_t> widths(n, 0);
  for (const auto& cells : lines) {
    for (std::size_t c = 0; c < n; ++c) widths[c] = std::max(widths[c], display_width(cells[c]));
  }
  const auto total = [&] {
    return display_width(indent) + std::accumulate(widths.begin(), widths.end(), std::size_t{0}) +
           (n > 0 ? (n - 1) * table.gap : 0);
  };
  // Shrink the widest shrinkable column, one column of text at a time.
  while (total() > max_width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      const TableColumn& col = table.columns[c];
      if (col.shrinkable && widths[c] > col.min_width && (widest == n || widths[c] > widths[widest])) widest = c;
    }
    if (widest == n) break;  // nothing left to shrink: let it be wider
    --widths[widest];
  }

  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    // Each cell's lines: one, cut to its width, unless its column wraps.
    std::vector<std::vector<std::string>> folded(n);
    std::size_t height = 1;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string& cell = cells[c];
      folded[c] = table.columns[c].wrap ? fold(cell, widths[c]) : std::vector<std::string>{cut(cell, widths[c])};
      height = std::max(height, folded[c].size());
    }
    for (std::size_t l = 0; l < height; ++l) {
      std::string text(indent);
      for (std::size_t c = 0; c < n; ++c) {
        const std::string cell = l < folded[c].size() ? folded[c][l] : std::string();
        const bool last = c + 1 == n;
        const bool right = table.columns[c].right_aligned;
        text += last && !right ? cell : pad(cell, widths[c], right);
        if (!last) text += std::string(table.gap, ' ');
      }
      while (l > 0 && !text.empty() && text.back() == ' ') text.pop_back();  // continuation lines: no padding
      out += text + "\n";
    }
  };
  for (const auto& cells : lines) line(cells);
  return out;
}

std::string wrap_text(std::string_view text, std::size_t width, std::string_view first_indent,
                      std::string_view indent) {
  const std::string safe = terminal_safe(text);  // measured as it is shown
  text = safe;
  // Words, with a short word after a number kept on its line ("7.5 %",
  // "2.70 GiB", "12 s)"): a unit alone at the start of a line reads badly.
  std::vector<std::string> words;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t space = std::min(text.find(' ', pos), text.size());
    const std::string_view word = text.substr(pos, space - pos);
    pos = space + 1;
    if (word.empty()) continue;
    const bool after_number = !words.empty() && std::isdigit(static_cast<unsigned char>(words.back().back()));
    if (after_number && display_width(word) <= 4) {
      words.back().append(" ").append(word);
    } else {
      words.emplace_back(word);
    }
  }
  std::string out;
  std::string line(first_indent);
  std::size_t line_width = display_width(first_indent);
  bool line_has_word = false;
  for (const std::string& word : words) {
    const std::size_t w = display_width(word);
    if (line_has_word && line_width + 1 + w > width) {
      out += line + "\n";
      line = indent;
      line_width = display_width(indent);
      line_has_word = false;
    }
    if (line_has_word) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += w;
    line_has_word = true;
  }
  return out + line + "\n";
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : terminal_safe(text)) {
    if (c == '|') out += '\\';
    out.push_back(c);
  }
  return out;
}

std::string render_markdown_table(const Table& table) {
  std::string out = "|";
  // append(), not " " + cell: GCC 12 at -O3 warns falsely (-Wrestrict) on a one-character
  // literal + a temporary string.
  for (const TableColumn& col : table.columns) out.append(" ").append(markdown_cell(col.header)).append(" |");
  out += "\n|";
  for (const TableColumn& col : table.columns) out += col.right_aligned ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      out.append(" ").append(markdown_cell(c < row.size() ? row[c] : std::string())).append(" |");
    }
    out += "\n";
  }
  return out;
}

}  // namespace gpuwatch
