#include "cli/status_checks.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/atomic_file.h"

namespace gpuwatch::cli {

namespace {

std::filesystem::path check_file(const std::string& run_id) {
  std::filesystem::path base;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state) {
    base = state;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::filesystem::path(home) / ".local" / "state";
  } else {
    return {};
  }
  return base / "gpuwatch" / "status" / run_id;
}

}  // namespace

std::optional<std::int64_t> last_check_end_mono_ns(const std::string& run_id) {
  const std::filesystem::path path = check_file(run_id);
  if (run_id.empty() || path.empty()) return std::nullopt;
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;  // not ours: start afresh
  return v;
}

void remember_check(const std::string& run_id, std::int64_t end_mono_ns) {
  const std::filesystem::path path = check_file(run_id);
  if (run_id.empty() || path.empty()) return;
  try {
    std::filesystem::create_directories(path.parent_path());
    write_file_atomically(path, [&](const WriteChunk& w) { w(std::to_string(end_mono_ns) + "\n"); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuwatch: warning: cannot remember this check (%s)\n", e.what());
  }
}

void forget_check(const std::string& run_id) {
  const std::filesystem::path path = check_file(run_id);
  if (run_id.empty() || path.empty()) return;
  std::error_code ec;
  std::filesystem::remove(path, ec);  // none there is the usual case
}

}  // namespace gpuwatch::cli
