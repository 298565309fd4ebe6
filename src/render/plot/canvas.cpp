#include "render/plot/canvas.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <numbers>

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "render/plot/cairo_library.h"

namespace gpuwatch::plot {

namespace {

// Installed by scripts/install-deps.sh (fonts-dejavu-core); has °, ±, … and
// every glyph the labels use.
constexpr const char* kFontFace = "DejaVu Sans";
constexpr std::string_view kEllipsis = "\u2026";

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// Where a cairo stream writes: the atomic file. A C callback must not throw,
// so the first failure is kept and rethrown once cairo returns.
struct StreamSink {
  const WriteChunk* write = nullptr;
  std::exception_ptr error;
};

cairo_status_t write_to_sink(void* closure, const unsigned char* data, unsigned int length) {
  auto* sink = static_cast<StreamSink*>(closure);
  if (sink->error) return CAIRO_STATUS_WRITE_ERROR;
  try {
    (*sink->write)(std::string_view(reinterpret_cast<const char*>(data), length));
  } catch (...) {
    sink->error = std::current_exception();
    return CAIRO_STATUS_WRITE_ERROR;
  }
  return CAIRO_STATUS_SUCCESS;
}

void check_surface(cairo_surface_t* surface, const std::filesystem::path& path) {
  const cairo_status_t status = cairo_api().surface_status(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    cairo_api().surface_destroy(surface);
    throw PlotError(fmt::format("cannot create the picture for {}: {}", path.string(),
                                cairo_api().status_to_string(status)));
  }
}

void paint_background(Canvas& canvas) { canvas.fill({0, 0, canvas.width(), canvas.height()}, rgb_hex(0xffffff)); }

}  // namespace

FileFormat file_format(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png") return FileFormat::Png;
  if (ext == ".svg") return FileFormat::Svg;
  if (ext == ".pdf") return FileFormat::Pdf;
  throw PlotError(fmt::format("cannot tell the picture format of '{}': the file name must end in .png, .svg or .pdf",
                              path.string()));
}

Canvas::Canvas(cairo_surface_t* surface, int width, int height)
    : surface_(surface), cr_(cairo_api().create(surface)), width_(width), height_(height) {
  cairo_api().set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
  cairo_api().set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
}

Canvas::~Canvas() {
  cairo_api().destroy(cr_);
  cairo_api().surface_destroy(surface_);
}

std::unique_ptr<Canvas> Canvas::image(int width, int height) {
  cairo_surface_t* surface = cairo_api().image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  check_surface(surface, "an image in memory");
  auto canvas = std::make_unique<Canvas>(surface, width, height);
  paint_background(*canvas);
  return canvas;
}

void Canvas::use_font(const Font& font) {
  cairo_api().select_font_face(cr_, kFontFace, CAIRO_FONT_SLANT_NORMAL,
                         font.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_api().set_font_size(cr_, font.size);
}

Canvas::TextMetrics Canvas::measure(const std::string& text, const Font& font) {
  use_font(font);
  cairo_text_extents_t ext;
  cairo_api().text_extents(cr_, text.c_str(), &ext);
  cairo_font_extents_t fe;
  cairo_api().font_extents(cr_, &fe);
  return {ext.x_advance, fe.ascent + fe.descent, fe.ascent};
}

double Canvas::text_width(std::string_view text, const Font& font) { return measure(std::string(text), font).width; }

double Canvas::line_height(const Font& font) { return measure("", font).height; }

std::string Canvas::fit(std::string_view text, double max_width, const Font& font) {
  if (text_width(text, font) <= max_width) return std::string(text);
  std::string s(text);
  while (!s.empty()) {
    // Drop one UTF-8 character from the end.
    std::size_t cut = s.size() - 1;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s.resize(cut);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    const std::string candidate = s + std::string(kEllipsis);
    if (text_width(candidate, font) <= max_width) return candidate;
  }
  return "";
}

Rect Canvas::text(std::string_view text, double x, double y, HAlign h, VAlign v, const Font& font, Rgb color) {
  const std::string s(text);
  const TextMetrics m = measure(s, font);
  const double width = m.width;
  const double height = m.height;
  const double left = h == HAlign::Left ? x : h == HAlign::Center ? x - width / 2 : x - width;
  const double top = v == VAlign::Top ? y : v == VAlign::Middle ? y - height / 2 : y - height;
  cairo_api().set_source_rgb(cr_, color.r, color.g, color.b);
  cairo_api().move_to(cr_, left, top + m.ascent);
  cairo_api().show_text(cr_, s.c_str());
  cairo_api().new_path(cr_);
  const Rect box{left, top, width, height};
  texts_.push_back({box, s});
  return box;
}

Rect Canvas::text_up(std::string_view text, double cx, double cy, const Font& font, Rgb color) {
  const std::string s(text);
  const TextMetrics m = measure(s, font);
  const double length = m.width;
  const double height = m.height;
  cairo_api().save(cr_);
  cairo_api().translate(cr_, cx, cy);
  cairo_api().rotate(cr_, -std::numbers::pi / 2);
  cairo_api().set_source_rgb(cr_, color.r, color.g, color.b);
  cairo_api().move_to(cr_, -length / 2, -height / 2 + m.ascent);
  cairo_api().show_text(cr_, s.c_str());
  cairo_api().new_path(cr_);
  cairo_api().restore(cr_);
  const Rect box{cx - height / 2, cy - length / 2, height, length};
  texts_.push_back({box, s});
  return box;
}

void Canvas::line(double x0, double y0, double x1, double y1, Rgb color, double width, std::span<const double> dash) {
  cairo_api().set_source_rgb(cr_, color.r, color.g, color.b);
  cairo_api().set_line_width(cr_, width);
  cairo_api().set_dash(cr_, dash.data(), static_cast<int>(dash.size()), 0);
  cairo_api().move_to(cr_, x0, y0);
  cairo_api().line_to(cr_, x1, y1);
  cairo_api().stroke(cr_);
  cairo_api().set_dash(cr_, nullptr, 0, 0);
}

void Canvas::fill(const Rect& r, Rgb color, double alpha) {
  cairo_api().set_source_rgba(cr_, color.r, color.g, color.b, alpha);
  cairo_api().rectangle(cr_, r.x, r.y, r.w, r.h);
  cairo_api().fill(cr_);
}

void Canvas::stroke(const Rect& r, Rgb color, double width) {
  cairo_api().set_source_rgb(cr_, color.r, color.g, color.b);
  cairo_api().set_line_width(cr_, width);
  cairo_api().rectangle(cr_, r.x, r.y, r.w, r.h);
  cairo_api().stroke(cr_);
}

void Canvas::check() const {
  const cairo_status_t status = cairo_api().status(cr_);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw PlotError(fmt::format("drawing failed: {}", cairo_api().status_to_string(status)));
  }
}

void write_canvas_file(const std::filesystem::path& path, int width, int height,
                       const std::function<void(Canvas&)>& draw) {
  const FileFormat format = file_format(path);
  if (format == FileFormat::Png) {
    // Draw first: a failure then leaves no file behind at all.
    auto canvas = Canvas::image(width, height);
    draw(*canvas);
    canvas->check();
    write_file_atomically(path, [&](const WriteChunk& write) {
      StreamSink sink{&write, nullptr};
      const cairo_status_t status = cairo_api().surface_write_to_png_stream(canvas->surface(), write_to_sink, &sink);
      if (sink.error) std::rethrow_exception(sink.error);
      if (status != CAIRO_STATUS_SUCCESS) {
        throw PlotError(fmt::format("cannot write {}: {}", path.string(), cairo_api().status_to_string(status)));
      }
    });
    return;
  }
  write_file_atomically(path, [&](const WriteChunk& write) {
    StreamSink sink{&write, nullptr};
    const auto w = static_cast<double>(width);
    const auto h = static_cast<double>(height);
    cairo_surface_t* surface = format == FileFormat::Svg
                                   ? cairo_api().svg_surface_create_for_stream(write_to_sink, &sink, w, h)
                                   : cairo_api().pdf_surface_create_for_stream(write_to_sink, &sink, w, h);
    check_surface(surface, path);
    if (format == FileFormat::Svg) {
      cairo_api().svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX);
    } else {
      cairo_api().pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "gpuwatch");
    }
    cairo_status_t status = CAIRO_STATUS_SUCCESS;
    {
      Canvas canvas(surface, width, height);  // owns the surface from here
      paint_background(canvas);
      draw(canvas);
      canvas.check();
      cairo_api().surface_finish(surface);  // the vector formats write their content here
      status = cairo_api().surface_status(surface);
    }
    if (sink.error) std::rethrow_exception(sink.error);
    if (status != CAIRO_STATUS_SUCCESS) {
      throw PlotError(fmt::format("cannot write {}: {}", path.string(), cairo_api().status_to_string(status)));
    }
  });
}

}  // namespace gpuwatch::plot
