// A drawing surface for plots: cairo underneath, chosen by the output file's
// extension (PNG, SVG, PDF). Text goes through here so that every label is
// measured before it is placed and its box is remembered: layouts use the
// measurements to avoid overlaps, and tests check that no two boxes overlap.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::plot {

class PlotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Rgb {
  double r = 0;
  double g = 0;
  double b = 0;
};
constexpr Rgb rgb_hex(std::uint32_t hex) {
  return {static_cast<double>((hex >> 16) & 0xff) / 255.0, static_cast<double>((hex >> 8) & 0xff) / 255.0,
          static_cast<double>(hex & 0xff) / 255.0};
}

struct Rect {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
  [[nodiscard]] double right() const { return x + w; }
  [[nodiscard]] double bottom() const { return y + h; }
  // A shared area, not just a shared edge.
  [[nodiscard]] bool overlaps(const Rect& o) const {
    return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
  }
  [[nodiscard]] bool contains(const Rect& o) const {
    return o.x >= x && o.y >= y && o.right() <= right() && o.bottom() <= bottom();
  }
};

// A piece of text as drawn: where, and what.
struct TextBox {
  Rect box;
  std::string text;
};

enum class FileFormat { Png, Svg, Pdf };
// By extension, case-insensitive. Throws PlotError for anything else.
FileFormat file_format(const std::filesystem::path& path);

enum class HAlign { Left, Center, Right };
enum class VAlign { Top, Middle, Bottom };

struct Font {
  double size = 12;
  bool bold = false;
};

class Canvas {
 public:
  // Takes ownership of `surface`. Units are pixels (points in SVG and PDF).
  Canvas(cairo_surface_t* surface, int width, int height);
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  // An in-memory ARGB image, for PNG output and for tests that read pixels.
  static std::unique_ptr<Canvas> image(int width, int height);

  [[nodiscard]] cairo_t* cr() const { return cr_; }
  [[nodiscard]] cairo_surface_t* surface() const { return surface_; }
  [[nodiscard]] double width() const { return width_; }
  [[nodiscard]] double height() const { return height_; }

  [[nodiscard]] double text_width(std::string_view text, const Font& font);
  // Ascent plus descent: the height of a line of text, whatever its letters.
  [[nodiscard]] double line_height(const Font& font);
  // `text`, or as much of it as fits in max_width followed by an ellipsis.
  [[nodiscard]] std::string fit(std::string_view text, double max_width, const Font& font);

  // Draws text anchored at (x, y) and returns (and remembers) its box.
  Rect text(std::string_view text, double x, double y, HAlign h, VAlign v, const Font& font, Rgb color);
  // Text turned a quarter left (reading upwards), centred on (cx, cy).
  Rect text_up(std::string_view text, double cx, double cy, const Font& font, Rgb color);
  // Every piece of text drawn so far, in drawing order.
  [[nodiscard]] const std::vector<TextBox>& texts() const { return texts_; }

  void line(double x0, double y0, double x1, double y1, Rgb color, double width, std::span<const double> dash = {});
  void fill(const Rect& r, Rgb color, double alpha = 1);
  void stroke(const Rect& r, Rgb color, double width);

  // Throws PlotError when cairo has failed (out of memory, a write error).
  void check() const;

 private:
  void use_font(const Font& font);
  // Selects the font and measures `text`: advance width, line height, ascent.
  struct TextMetrics {
    double width;
    double height;
    double ascent;
  };
  TextMetrics measure(const std::string& text, const Font& font);

  cairo_surface_t* surface_;
  cairo_t* cr_;
  double width_;
  double height_;
  std::vector<TextBox> texts_;
};

// Creates a canvas of the format the path's extension names, white, lets
// `draw` paint it, and writes the file atomically (a reader never sees half a
// picture). Throws PlotError or std::runtime_error (I/O) with the path.
void write_canvas_file(const std::filesystem::path& path, int width, int height,
                       const std::function<void(Canvas&)>& draw);

}  // namespace gpuwatch::plot
