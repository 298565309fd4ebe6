// Reading device chunks into columns: shared by load() (store_read.cpp) and
// the chunk-at-a-time visit (store_visit.cpp). Private to the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/run.h"
#include "store/chunk_codec.h"
#include "store/sqlite_util.h"
#include "store/store_impl.h"

namespace gpuwatch {

inline std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto comma = s.find(',');
    out.push_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

// For each metric of `table`, the chunk column holding it (-1: none), given
// the column names recorded with the run. An empty list means this build's
// own order.
template <typename Table>
std::vector<int> column_sources(const Table& table, std::string_view recorded) {
  std::vector<int> source(table.size(), -1);
  // The views point into `own` when the run recorded no names: it must outlive them.
  const std::string own = recorded.empty() ? metric_names(table) : std::string();
  const auto names = split_commas(recorded.empty() ? std::string_view(own) : recorded);
  for (std::size_t j = 0; j < names.size(); ++j) {
    const int m = metric_index_by_name(table, names[j]);
    if (m >= 0) source[static_cast<std::size_t>(m)] = static_cast<int>(j);
  }
  return source;
}

// Decodes the chunk in columns col..col+3 of `q` (first and last mono time,
// row count, blob) straight onto the end of `s`, for the metrics `source`
// maps; a chunk that does not decode or disagrees with its row is left out
// and reported through `corrupt`.
template <typename Corrupt>
void append_device_chunk(const sql::Stmt& q, int col, DeviceSeries& s, const std::vector<int>& source,
                         bool wall_clock, const Corrupt& corrupt) {
  std::vector<ColumnTarget> targets;
  for (std::size_t m = 0; m < source.size(); ++m) {
    if (source[m] < 0) continue;
    const auto j = static_cast<std::size_t>(source[m]);
    if (targets.size() <= j) targets.resize(j + 1);
    targets[j] = {&s.values[m], kDeviceMetrics[m].scale};
  }
  const std::size_t before = s.mono_ns.size();
  const std::int64_t first = q.int64(col);
  std::string why;
  const auto rows = decode_chunk_append(q.blob(col + 3), targets, s.mono_ns, wall_clock ? &s.wall_ns : nullptr, &why);
  if (rows && *rows > 0 && static_cast<std::int64_t>(*rows) == q.int64(col + 2) && s.mono_ns[before] == first &&
      s.mono_ns.back() == q.int64(col + 1)) {
    return;
  }
  if (rows) {  // decoded, but not what its row says: take it back out
    s.mono_ns.resize(before);
    if (wall_clock) s.wall_ns.resize(before);
    for (const ColumnTarget& t : targets) {
      if (t.out) t.out->resize(before);
    }
    why = "chunk disagrees with its row's count or time range";
  }
  corrupt(first, s.info.index, why);
}

}  // namespace gpuwatch
