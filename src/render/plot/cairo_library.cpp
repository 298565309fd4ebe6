#include "render/plot/cairo_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "render/plot/canvas.h"

namespace gpuwatch::plot {

namespace {

constexpr const char* kLibrary = "libcairo.so.2";

class Loader {
 public:
  explicit Loader(void* handle) : handle_(handle) {}

  template <typename Fn>
  void operator()(Fn& fn, const char* symbol) {
    fn = reinterpret_cast<Fn>(dlsym(handle_, symbol));
    if (fn == nullptr && missing_.empty()) missing_ = symbol;
  }
  [[nodiscard]] const std::string& missing() const { return missing_; }

 private:
  void* handle_;
  std::string missing_;
};

std::string& chosen_library() {
  static std::string library;
  return library;
}

std::variant<CairoApi, std::string> load() {
  // GPUWATCH_CAIRO_LIBRARY: another file (the tests name a missing one to
  // play a machine without cairo).
  const char* library = chosen_library().empty() ? kLibrary : chosen_library().c_str();
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return fmt::format("plots need the cairo library, which could not be loaded ({}); install it "
                       "(Debian/Ubuntu: apt-get install libcairo2)",
                       dlerror());
  }
  CairoApi api{};
  Loader get(handle);
  get(api.arc, "cairo_arc");
  get(api.clip, "cairo_clip");
  get(api.create, "cairo_create");
  get(api.destroy, "cairo_destroy");
  get(api.fill, "cairo_fill");
  get(api.font_extents, "cairo_font_extents");
  get(api.get_target, "cairo_get_target");
  get(api.image_surface_create, "cairo_image_surface_create");
  get(api.line_to, "cairo_line_to");
  get(api.move_to, "cairo_move_to");
  get(api.new_path, "cairo_new_path");
  get(api.new_sub_path, "cairo_new_sub_path");
  get(api.pdf_surface_create_for_stream, "cairo_pdf_surface_create_for_stream");
  get(api.pdf_surface_set_metadata, "cairo_pdf_surface_set_metadata");
  get(api.rectangle, "cairo_rectangle");
  get(api.restore, "cairo_restore");
  get(api.rotate, "cairo_rotate");
  get(api.save, "cairo_save");
  get(api.select_font_face, "cairo_select_font_face");
  get(api.set_dash, "cairo_set_dash");
  get(api.set_font_size, "cairo_set_font_size");
  get(api.set_line_cap, "cairo_set_line_cap");
  get(api.set_line_join, "cairo_set_line_join");
  get(api.set_line_width, "cairo_set_line_width");
  get(api.set_source_rgb, "cairo_set_source_rgb");
  get(api.set_source_rgba, "cairo_set_source_rgba");
  get(api.show_text, "cairo_show_text");
  get(api.status, "cairo_status");
  get(api.status_to_string, "cairo_status_to_string");
  get(api.stroke, "cairo_stroke");
  get(api.surface_destroy, "cairo_surface_destroy");
  get(api.surface_finish, "cairo_surface_finish");
  get(api.surface_get_type, "cairo_surface_get_type");
  get(api.surface_status, "cairo_surface_status");
  get(api.surface_write_to_png_stream, "cairo_surface_write_to_png_stream");
  get(api.svg_surface_create_for_stream, "cairo_svg_surface_create_for_stream");
  get(api.svg_surface_set_document_unit, "cairo_svg_surface_set_document_unit");
  get(api.text_extents, "cairo_text_extents");
  get(api.translate, "cairo_translate");
  if (!get.missing().empty()) {
    // An old cairo (SVG document units came in 1.16): say so rather than crash.
    std::string why = fmt::format("the cairo library ({}) has no {}; plots need cairo 1.16 or newer",
                                  library, get.missing());
    dlclose(handle);
    return why;
  }
  return api;  // the library stays loaded until the process exits
}

}  // namespace

void set_cairo_library(std::string library) { chosen_library() = std::move(library); }

const CairoApi& cairo_api() {
  static const std::variant<CairoApi, std::string> loaded = load();
  if (const auto* why = std::get_if<std::string>(&loaded)) throw PlotError(*why);
  return std::get<CairoApi>(loaded);
}

}  // namespace gpuwatch::plot
