// The dashboard's pages, script and styles (web/), compiled in at build
// time (cmake/embed_files.cmake): no file is read from disk when serving.
#pragma once

#include <span>
#include <string_view>

namespace gpuwatch {

struct WebAsset {
  std::string_view path;  // the URL path: "/", "/static/app.js"
  std::string_view content_type;
  std::string_view body;
};

std::span<const WebAsset> web_assets();

// The asset at exactly `path`, or null.
const WebAsset* find_web_asset(std::string_view path);

}  // namespace gpuwatch
