// A screen as lines of styled text: what the top view composes and what the
// terminal layer draws (ncurses attributes per style) or prints plainly
// (`top --once`). Styles name a meaning, never a colour, so a monochrome
// terminal and NO_COLOR map them to bold/reverse or nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

enum class Style : std::uint8_t {
  Normal,
  Dim,       // labels, absent values
  Title,     // section and panel titles
  Header,    // column headers (reverse video)
  Selected,  // the selected process row
  Good,      // green: cool, idle, balanced
  Warn,      // yellow: hot, throttled, fair balance
  Bad,       // red: lost GPU, poor balance, errors
  GraphUtil,
  GraphMemory,
  GraphPower,
  GraphTemp,
  // One per GPU index, modulo eight: core/gpu_palette.h's colours, the
  // plots' and the dashboard's (gpu_style()).
  Gpu0,
  Gpu1,
  Gpu2,
  Gpu3,
  Gpu4,
  Gpu5,
  Gpu6,
  Gpu7,
};
inline constexpr std::size_t kGpuStyleCount = 8;
inline constexpr std::size_t kStyleCount = static_cast<std::size_t>(Style::Gpu7) + 1;

// The style of GPU `index`'s graphs and name: its colour wherever it is drawn.
constexpr Style gpu_style(int index) {
  const auto slot = static_cast<std::size_t>(index < 0 ? 0 : index) % kGpuStyleCount;
  return static_cast<Style>(static_cast<std::size_t>(Style::Gpu0) + slot);
}
// Which GPU colour `style` is (0-7), or -1 for any other style.
constexpr int gpu_colour_slot(Style style) {
  const auto s = static_cast<int>(style);
  const auto first = static_cast<int>(Style::Gpu0);
  return s >= first && s < first + static_cast<int>(kGpuStyleCount) ? s - first : -1;
}

struct Span {
  std::string text;
  Style style = Style::Normal;
};

// Its text is kept terminal_safe (render/terminal_text.h).
class ScreenLine {
 public:
  ScreenLine() = default;
  explicit ScreenLine(std::string text, Style style = Style::Normal) { add(std::move(text), style); }
  ScreenLine& add(std::string text, Style style = Style::Normal);
  ScreenLine& append(const ScreenLine& other);
  // Spaces up to `column` (nothing if already there).
  ScreenLine& pad_to(std::size_t column, Style style = Style::Normal);
  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] const std::vector<Span>& spans() const { return spans_; }
  // The same line cut at `columns` (on a code point, never inside a wide
  // character).
  [[nodiscard]] ScreenLine cut(std::size_t columns) const;
  [[nodiscard]] std::string text() const;

 private:
  std::vector<Span> spans_;
  std::size_t width_ = 0;  // display columns
};

using Screen = std::vector<ScreenLine>;

// `text` padded on the left to `columns` display columns.
std::string align_right(std::string_view text, std::size_t columns);

// `text` padded on the right to `columns` display columns.
std::string align_left(std::string_view text, std::size_t columns);

// Plain text, one line each, trailing spaces dropped: `top --once`.
std::string plain_text(const Screen& screen);

}  // namespace gpuwatch
