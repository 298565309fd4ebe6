#include "render/top/screen.h"

#include "core/text_width.h"
#include "render/terminal_text.h"

namespace gpuwatch {

ScreenLine& ScreenLine::add(std::string text, Style style) {
  if (text.empty()) return *this;
  // Process commands, GPU and run names: shown, never acted on by the terminal.
  text = terminal_safe(text);
  width_ += display_width(text);
  if (!spans_.empty() && spans_.back().style == style) {
    spans_.back().text += text;
  } else {
    spans_.push_back(Span{std::move(text), style});
  }
  return *this;
}

ScreenLine& ScreenLine::append(const ScreenLine& other) {
  for (const Span& span : other.spans_) add(span.text, span.style);
  return *this;
}

ScreenLine& ScreenLine::pad_to(std::size_t column, Style style) {
  if (width_ < column) add(std::string(column - width_, ' '), style);
  return *this;
}

ScreenLine ScreenLine::cut(std::size_t columns) const {
  ScreenLine out;
  for (const Span& span : spans_) {
    if (out.width_ >= columns) break;
    const std::string_view kept = prefix_fitting(span.text, columns - out.width_);
    out.add(std::string(kept), span.style);
    // A wide character that did not fit ends the line: what follows it must
    // not move up into its place.
    if (kept.size() < span.text.size()) break;
  }
  return out;
}

std::string ScreenLine::text() const {
  std::string out;
  for (const Span& span : spans_) out += span.text;
  return out;
}

std::string align_right(std::string_view text, std::size_t columns) {
  const std::size_t w = display_width(text);
  std::string out(w < columns ? columns - w : 0, ' ');
  out += text;
  return out;
}

std::string align_left(std::string_view text, std::size_t columns) {
  std::string out(text);
  const std::size_t w = display_width(text);
  if (w < columns) out.append(columns - w, ' ');
  return out;
}

std::string plain_text(const Screen& screen) {
  std::string out;
  for (const ScreenLine& line : screen) {
    std::string text = line.text();
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  }
  return out;
}

}  // namespace gpuwatch
