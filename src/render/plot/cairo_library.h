// cairo, loaded when the first picture is drawn rather than when gpuwatch
// starts. Linked, cairo and the libraries it pulls in (pixman, X11, xcb,
// fontconfig, freetype, png ...) cost every command ~1.3 MiB of resident
// memory and their relocations at start-up, `record` included, while only
// plot draws (docs/performance.md). The header types come from <cairo.h> as
// before; only the calls go through this table.
#pragma once

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <string>

namespace gpuwatch::plot {

struct CairoApi {
  decltype(&::cairo_arc) arc;
  decltype(&::cairo_clip) clip;
  decltype(&::cairo_create) create;
  decltype(&::cairo_destroy) destroy;
  decltype(&::cairo_fill) fill;
  decltype(&::cairo_font_extents) font_extents;
  decltype(&::cairo_get_target) get_target;
  decltype(&::cairo_image_surface_create) image_surface_create;
  decltype(&::cairo_line_to) line_to;
  decltype(&::cairo_move_to) move_to;
  decltype(&::cairo_new_path) new_path;
  decltype(&::cairo_new_sub_path) new_sub_path;
  decltype(&::cairo_pdf_surface_create_for_stream) pdf_surface_create_for_stream;
  decltype(&::cairo_pdf_surface_set_metadata) pdf_surface_set_metadata;
  decltype(&::cairo_rectangle) rectangle;
  decltype(&::cairo_restore) restore;
  decltype(&::cairo_rotate) rotate;
  decltype(&::cairo_save) save;
  decltype(&::cairo_select_font_face) select_font_face;
  decltype(&::cairo_set_dash) set_dash;
  decltype(&::cairo_set_font_size) set_font_size;
  decltype(&::cairo_set_line_cap) set_line_cap;
  decltype(&::cairo_set_line_join) set_line_join;
  decltype(&::cairo_set_line_width) set_line_width;
  decltype(&::cairo_set_source_rgb) set_source_rgb;
  decltype(&::cairo_set_source_rgba) set_source_rgba;
  decltype(&::cairo_show_text) show_text;
  decltype(&::cairo_status) status;
  decltype(&::cairo_status_to_string) status_to_string;
  decltype(&::cairo_stroke) stroke;
  decltype(&::cairo_surface_destroy) surface_destroy;
  decltype(&::cairo_surface_finish) surface_finish;
  decltype(&::cairo_surface_get_type) surface_get_type;
  decltype(&::cairo_surface_status) surface_status;
  decltype(&::cairo_surface_write_to_png_stream) surface_write_to_png_stream;
  decltype(&::cairo_svg_surface_create_for_stream) svg_surface_create_for_stream;
  decltype(&::cairo_svg_surface_set_document_unit) svg_surface_set_document_unit;
  decltype(&::cairo_text_extents) text_extents;
  decltype(&::cairo_translate) translate;
};

// Loads libcairo.so.2 on the first call (thread-safe) and keeps it loaded.
// Throws PlotError, saying what to install, when it or a function is missing.
const CairoApi& cairo_api();

// The cairo library to load instead of the system's (GPUWATCH_CAIRO_LIBRARY,
// as cli/ read it; empty: the system's). Call before the first cairo_api(),
// from one thread: cli/ does at start.
void set_cairo_library(std::string library);

}  // namespace gpuwatch::plot
