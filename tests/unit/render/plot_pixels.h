// Reading the plots' pixels back, for tests that check where things were
// drawn (cairo's own calls: the tests link cairo).
#pragma once

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "render/plot/canvas.h"

namespace gpuwatch::plot::test_pixels {

// Reads an ARGB32 image surface (opaque: the plots paint a white background).
class Pixels {
 public:
  explicit Pixels(Canvas& canvas) : surface_(canvas.surface()) {
    cairo_surface_flush(surface_);
    data_ = cairo_image_surface_get_data(surface_);
    stride_ = cairo_image_surface_get_stride(surface_);
    width_ = cairo_image_surface_get_width(surface_);
    height_ = cairo_image_surface_get_height(surface_);
  }
  [[nodiscard]] Rgb at(double x, double y) const {
    const int px = std::clamp(static_cast<int>(x), 0, width_ - 1);
    const int py = std::clamp(static_cast<int>(y), 0, height_ - 1);
    std::uint32_t argb = 0;
    std::memcpy(&argb, data_ + static_cast<std::ptrdiff_t>(py) * stride_ + px * 4, 4);
    return {static_cast<double>((argb >> 16) & 0xff) / 255, static_cast<double>((argb >> 8) & 0xff) / 255,
            static_cast<double>(argb & 0xff) / 255};
  }
  // Whether a pixel within `reach` rows of (x, y) has nearly this colour.
  [[nodiscard]] bool near(double x, double y, Rgb color, int reach = 2) const {
    for (int dy = -reach; dy <= reach; ++dy) {
      if (close(at(x, y + dy), color)) return true;
    }
    return false;
  }
  // Whether any pixel of the rectangle has nearly this colour.
  [[nodiscard]] bool any_in(const Rect& r, Rgb color) const {
    for (double y = r.y; y < r.bottom(); ++y) {
      for (double x = r.x; x < r.right(); ++x) {
        if (close(at(x, y), color)) return true;
      }
    }
    return false;
  }
  // Antialiasing blends a line's edge with the white around it: a pixel the
  // line covers four-fifths is still its colour here.
  static bool close(Rgb a, Rgb b) {
    return std::abs(a.r - b.r) <= 0.21 && std::abs(a.g - b.g) <= 0.21 && std::abs(a.b - b.b) <= 0.21;
  }

 private:
  cairo_surface_t* surface_;
  unsigned char* data_;
  int stride_;
  int width_;
  int height_;
};

inline Rgb blend_on_white(Rgb c, double alpha) {
  return {c.r * alpha + (1 - alpha), c.g * alpha + (1 - alpha), c.b * alpha + (1 - alpha)};
}

}  // namespace gpuwatch::plot::test_pixels
