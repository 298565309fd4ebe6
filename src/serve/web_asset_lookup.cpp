#include "serve/web_assets.h"

namespace gpuwatch {

const WebAsset* find_web_asset(std::string_view path) {
  for (const WebAsset& a : web_assets()) {
    if (a.path == path) return &a;
  }
  return nullptr;
}

}  // namespace gpuwatch
