#include "store/run_lookup.h"

#include <algorithm>

#include <fmt/format.h>

#include "store/store.h"

namespace gpuwatch {

namespace {

constexpr std::size_t kShown = 10;

bool later(const RunInfo& a, const RunInfo& b) {
  return a.start_wall_ns != b.start_wall_ns ? a.start_wall_ns > b.start_wall_ns : a.row_id > b.row_id;
}

// Of each store, its latest run that `match` accepts.
template <typename Match>
std::vector<RunFound> latest_per_store(std::span<const StoreRuns> stores, const Match& match) {
  std::vector<RunFound> out;
  for (std::size_t s = 0; s < stores.size(); ++s) {
    const RunInfo* best = nullptr;
    for (const RunInfo& r : stores[s].runs) {
      if (match(r) && (best == nullptr || later(r, *best))) best = &r;
    }
    if (best != nullptr) out.push_back({s, *best});
  }
  return out;
}

std::string candidates(std::span<const StoreRuns> stores, const std::vector<RunFound>& found) {
  std::string list;
  for (std::size_t i = 0; i < std::min(found.size(), kShown); ++i) {
    const RunInfo& r = found[i].run;
    list += fmt::format("\n  {}{}{} in {}", r.id, r.name.empty() ? "" : fmt::format(" ({})", r.name),
                        r.host.empty() ? "" : fmt::format(" on {}", r.host), stores[found[i].store].store);
  }
  if (found.size() > kShown) list += "\n  ...";
  return list;
}

bool is_hex_prefix(const std::string& ref) {
  return ref.size() <= 12 &&
         std::all_of(ref.begin(), ref.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::vector<std::filesystem::path> expand_store_paths(std::span<const std::string> given,
                                                      const std::filesystem::path& fallback) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  std::vector<fs::path> seen;
  const auto add = [&](const fs::path& p) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(p, ec);
    if (ec) key = p;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
    seen.push_back(key);
    out.push_back(p);
  };
  if (given.empty()) {
    out.push_back(fallback);
    return out;
  }
  for (const std::string& g : given) {
    if (g.empty()) throw StoreError("--store needs a file or folder, not an empty name");
    std::error_code ec;
    const fs::file_status st = fs::status(g, ec);
    if (!fs::exists(st)) throw StoreError(fmt::format("no run store {} (no such file or folder)", g));
    if (!fs::is_directory(st)) {
      add(g);
      continue;
    }
    std::vector<fs::path> files;
    for (fs::directory_iterator it(g, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".db" && it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) throw StoreError(fmt::format("cannot list the folder {}: {}", g, ec.message()));
    if (files.empty()) throw StoreError(fmt::format("the folder {} holds no run store (no *.db file)", g));
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) add(f);
  }
  return out;
}

RunFound resolve_across(std::span<const StoreRuns> stores, const std::string& ref) {
  if (ref.empty()) throw StoreError("empty run reference");
  const auto by_id = latest_per_store(stores, [&ref](const RunInfo& r) { return r.id == ref; });
  if (by_id.size() == 1) return by_id.front();
  if (by_id.size() > 1) {
    throw StoreError(fmt::format("run id {} is in {} stores; give one --store:{}", ref, by_id.size(),
                                 candidates(stores, by_id)));
  }
  if (ref == "last") {
    const auto latest = latest_per_store(stores, [](const RunInfo&) { return true; });
    if (latest.empty()) throw StoreError(fmt::format("no runs in any of the {} stores yet", stores.size()));
    return *std::min_element(latest.begin(), latest.end(),
                             [](const RunFound& a, const RunFound& b) { return later(a.run, b.run); });
  }
  const auto by_name = latest_per_store(stores, [&ref](const RunInfo& r) { return r.name == ref; });
  if (by_name.size() == 1) return by_name.front();
  if (by_name.size() > 1) {
    throw StoreError(fmt::format("run name '{}' is in {} stores; name one run by its id:{}", ref, by_name.size(),
                                 candidates(stores, by_name)));
  }
  if (is_hex_prefix(ref)) {
    std::vector<RunFound> prefixed;
    for (std::size_t s = 0; s < stores.size(); ++s) {
      for (const RunInfo& r : stores[s].runs) {
        if (r.id.starts_with(ref)) prefixed.push_back({s, r});
      }
    }
    if (prefixed.size() == 1) return prefixed.front();
    if (prefixed.size() > 1) {
      throw StoreError(fmt::format("run id prefix '{}' is ambiguous; it matches:{}", ref, candidates(stores, prefixed)));
    }
  }
  throw StoreError(fmt::format(
      "no run matches '{}' in any of the {} stores (expected a run id, a unique prefix of one, a run name, "
      "'last', or a file to import; `gpuwatch runs --store FILE` lists a store's runs)",
      ref, stores.size()));
}

}  // namespace gpuwatch
