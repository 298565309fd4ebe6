#include "render/plot/legend.h"

#include <algorithm>

#include "render/plot/style.h"

namespace gpuwatch::plot {

namespace {

constexpr double kSwatchWidth = 26;
constexpr double kSwatchGap = 6;     // swatch to label
constexpr double kEntryGap = 22;     // label to next swatch
constexpr double kRowSpacing = 1.5;  // row height / text height

struct Placed {
  std::size_t entry;
  double x;  // relative to the row's start
  double label_width;
};

// Greedy rows; an entry wider than the band gets a row of its own, its label
// shortened to fit.
std::vector<std::vector<Placed>> wrap(Canvas& canvas, std::span<const LegendEntry> entries, double width) {
  std::vector<std::vector<Placed>> rows;
  double x = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double max_label = std::max(0.0, width - kSwatchWidth - kSwatchGap);
    const double label_width = std::min(canvas.text_width(entries[i].label, fonts::kLegend), max_label);
    const double item = kSwatchWidth + kSwatchGap + label_width;
    if (rows.empty() || (x > 0 && x + item > width)) {
      rows.emplace_back();
      x = 0;
    }
    rows.back().push_back({i, x, label_width});
    x += item + kEntryGap;
  }
  return rows;
}

void draw_swatch(Canvas& canvas, const LegendEntry& e, const Rect& r) {
  const double mid = r.y + r.h / 2;
  switch (e.swatch) {
    case Swatch::Line:
      canvas.line(r.x, mid, r.right(), mid, e.color, kLineWidth + 0.8, e.dash);
      break;
    case Swatch::Box:
      canvas.fill({r.x + 3, r.y + 1, r.w - 6, r.h - 2}, e.color);
      break;
    case Swatch::Marker:
      canvas.line(r.x + r.w / 2, r.y, r.x + r.w / 2, r.bottom(), e.color, 1.5, e.dash);
      break;
    case Swatch::None:
      break;
  }
}

}  // namespace

double legend_height(Canvas& canvas, std::span<const LegendEntry> entries, double width) {
  if (entries.empty()) return 0;
  const auto rows = wrap(canvas, entries, width);
  return static_cast<double>(rows.size()) * canvas.line_height(fonts::kLegend) * kRowSpacing;
}

std::vector<LegendItem> draw_legend(Canvas& canvas, std::span<const LegendEntry> entries, const Rect& band) {
  std::vector<LegendItem> items;
  const double text_h = canvas.line_height(fonts::kLegend);
  const double row_h = text_h * kRowSpacing;
  const auto rows = wrap(canvas, entries, band.w);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Placed& last = rows[r].back();
    const double row_width = last.x + kSwatchWidth + kSwatchGap + last.label_width;
    const double left = band.x + (band.w - row_width) / 2;
    const double top = band.y + static_cast<double>(r) * row_h + (row_h - text_h) / 2;
    for (const Placed& p : rows[r]) {
      const LegendEntry& e = entries[p.entry];
      const Rect swatch{left + p.x, top + 2, kSwatchWidth, text_h - 4};
      draw_swatch(canvas, e, swatch);
      const std::string label = canvas.fit(e.label, p.label_width + 0.5, fonts::kLegend);
      const Rect box = canvas.text(label, swatch.right() + kSwatchGap, top, HAlign::Left, VAlign::Top,
                                   fonts::kLegend, colors::kText);
      items.push_back({e, swatch, box});
    }
  }
  return items;
}

}  // namespace gpuwatch::plot
