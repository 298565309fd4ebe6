#include "cli/options.h"

#include <charconv>

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
  return flag_value.empty() ? default_store_path() : std::filesystem::path(flag_value);
}

StoreList::StoreList(const std::string& flag) {
  if (!flag.empty()) given.push_back(flag);
}

StoreList::StoreList(std::vector<std::string> flags) : given(std::move(flags)) {}

std::vector<std::filesystem::path> StoreList::paths() const {
  std::error_code ec;
  if (given.empty()) return {default_store_path()};
  if (given.size() == 1 && !given.front().empty() && !std::filesystem::is_directory(given.front(), ec)) {
    return {given.front()};
  }
  return expand_store_paths(given, {});
}

CLI::Option* add_stores_option(CLI::App& cmd, std::vector<std::string>& stores) {
  return cmd
      .add_option("--store", stores,
                  "Run store file (default: $GPUWATCH_STORE, else ~/.local/share/gpuwatch/runs.db), or a folder:\n"
                  "every *.db in it. Repeatable: several stores are read as one (one file per node of a job)")
      ->allow_extra_args(false);  // one store per flag: a RUN after it is no store
}

}  // namespace gpuwatch::cli
