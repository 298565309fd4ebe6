// What store_read.cpp (Store::load) shares with sample_cursor.cpp (a run read
// a chunk at a time), beside chunk_columns.h (mapping stored chunk columns to
// metrics, decoding a device chunk onto a series): the host's chunks and
// corrupt-chunk events, with the same checks. Private to the store.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics.h"
#include "core/run.h"
#include "store/chunk_codec.h"
#include "store/chunk_columns.h"
#include "store/sqlite_util.h"
#include "store/store_impl.h"

namespace gpuwatch {

// A destination column that the caller did not ask for: it stays empty.
inline constexpr int kNotAsked = -2;

// Told of a chunk left out: its first mono time, its device (none: the
// host's), and why.
using CorruptChunk = std::function<void(std::int64_t first_mono_ns, std::optional<int> device, std::string_view why)>;

// An event in place of samples that could not be read.
void note_corrupt_chunk(RunData& data, std::int64_t first_mono, std::optional<int> device, std::string_view why);

// Decodes the chunk in columns col..col+3 of `q` (as append_device_chunk
// does); returns it when the blob decodes and agrees with its row, else
// notes it in `data`'s events.
std::optional<Chunk> decode_checked_chunk(const sql::Stmt& q, int col, RunData& data);

// The host metrics' column names recorded with the run (empty: this build's order).
std::string host_column_names(sqlite3* db, std::int64_t row_id);

// Appends a host chunk: the named metrics, then one column per core; the
// cores of `h` grow to the chunk's, earlier rows NaN.
void append_host_chunk(const Chunk& c, const std::vector<int>& host_sources, std::size_t named, HostSeries& h,
                       bool with_cores = true);

}  // namespace gpuwatch
