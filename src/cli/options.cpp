#include "cli/options.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "base/environment.h"
#include "store/run_lookup.h"
#include "store/store.h"

namespace gpuwatch::cli {

namespace {

// What is wrong with a GPU list, without the flag's name: the validator's
// message gets "--gpus: " from CLI11, parse_gpu_list's from ValidationError.
class GpuListError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int parse_index(std::string_view s, const std::string& whole) {
  int v = -1;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > 1023) {
    throw GpuListError("expected GPU indices like 0,2 or 0-3, got '" + whole + "'");
  }
  return v;
}

std::vector<int> gpu_list(const std::string& text) {
  std::vector<int> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(parse_index(item, text));
      continue;
    }
    const int lo = parse_index(item.substr(0, dash), text);
    const int hi = parse_index(item.substr(dash + 1), text);
    if (hi < lo) throw GpuListError("range " + std::string(item) + " runs backwards");
    for (int i = lo; i <= hi; ++i) out.push_back(i);
  }
  if (out.empty()) throw GpuListError("no GPU index given");
  return out;
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text) {
  try {
    return gpu_list(text);
  } catch (const GpuListError& e) {
    throw CLI::ValidationError("--gpus", e.what());
  }
}

CLI::Option* add_gpus_option(CLI::App& cmd, std::string& gpus, const std::string& help) {
  return cmd.add_option("--gpus", gpus, help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              gpu_list(text);
            } catch (const GpuListError& e) {
              return e.what();
            }
            return {};
          },
          "LIST"));
}

CLI::Option* add_store_option(CLI::App& cmd, std::string& store) {
  return cmd.add_option("--store", store, "Run store file (default: $GPUWATCH_STORE, else ~/.local/share/gpuwatch/runs.db)");
}

std::filesystem::path store_path(const std::string& flag_value) {
  return flag_value.empty() ? default_store_path(environment_value) : std::filesystem::path(flag_value);
}

StoreList::StoreList(const std::string& flag) {
  if (!flag.empty()) given.push_back(flag);
}

StoreList::StoreList(std::vector<std::string> flags) : given(std::move(flags)) {}

std::vector<std::filesystem::path> StoreList::paths() const {
  std::error_code ec;
  if (given.empty()) {
    const std::filesystem::path fallback = default_store_path(environment_value);
    if (!std::filesystem::is_directory(fallback, ec)) return {fallback};
    return expand_store_paths(std::vector<std::string>{fallback.string()}, {});
  }
  if (given.size() == 1 && !given.front().empty() && !std::filesystem::is_directory(given.front(), ec)) {
    return {given.front()};
  }
  return expand_store_paths(given, {});
}

void prepare_output_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw std::runtime_error(fmt::format("--output-dir {}: it is a file, not a folder", dir.string()));
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("--output-dir {}: cannot create it: {}", dir.string(), ec.message()));
  // Its files are written after the command ends: a folder they cannot go
  // into must stop the recording before it starts, not after the job ran.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw std::runtime_error(
        fmt::format("--output-dir {}: this user cannot write in it: {}", dir.string(), std::strerror(errno)));
  }
}

CLI::Option* add_stores_option(CLI::App& cmd, std::vector<std::string>& stores) {
  return cmd
      .add_option("--store", stores,
                  "Run store file (default: $GPUWATCH_STORE, else ~/.local/share/gpuwatch/runs.db), or a folder:\n"
                  "every *.db in it. Repeatable: several stores are read as one (one file per node of a job)")
      ->allow_extra_args(false);  // one store per flag: a RUN after it is no store
}

}  // namespace gpuwatch::cli
