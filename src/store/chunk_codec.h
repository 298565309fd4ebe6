// Columnar encoding of a block of samples: one blob per series per commit.
//
// Layout (all integers are LEB128 varints; "zz" means zigzag-mapped signed):
//   u8      format (kChunkFormat)
//   varint  n rows
//   varint  K value columns
//   n x zz  mono_ns, delta-of-delta (the first delta is taken from 0)
//   n x zz  wall_ns, delta-of-delta
//   K x column:
//     u8 tag: 0 = all absent, 1 = all present, 2 = mixed
//     tag 2 only: ceil(n/8) bytes presence bitmap, row i = bit (i % 8) of
//                 byte i / 8; unused high bits of the last byte are zero
//     one zz per present value: delta from the previous present value
//                 of the column (the first from 0)
//
// Values are fixed-point integers, llround(value * MetricInfo::scale), so
// driver readings (mW, mJ, MiB) stay exact and slowly changing metrics
// delta to a byte or two. Regular sampling makes timestamp delta-of-deltas
// tiny (jitter only), which is why both clocks use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpuwatch {

inline constexpr std::uint8_t kChunkFormat = 1;

// Limits that a decoder enforces so that a corrupt header cannot make it
// allocate gigabytes; the writer splits its buffers to stay within them.
inline constexpr std::size_t kChunkMaxRows = std::size_t{1} << 16;
inline constexpr std::size_t kChunkMaxColumns = std::size_t{1} << 13;
inline constexpr std::size_t kChunkMaxCells = std::size_t{1} << 22;  // rows x columns

using ChunkColumn = std::vector<std::optional<std::int64_t>>;

struct Chunk {
  std::vector<std::int64_t> mono_ns;
  std::vector<std::int64_t> wall_ns;    // same length as mono_ns
  std::vector<ChunkColumn> columns;     // each as long as mono_ns

  [[nodiscard]] std::size_t rows() const { return mono_ns.size(); }
  bool operator==(const Chunk&) const = default;
};

// Throws std::invalid_argument when lengths disagree or limits are exceeded.
std::vector<std::uint8_t> encode_chunk(const Chunk& chunk);

// Total function over arbitrary bytes: returns nullopt (and, when `error` is
// given, a reason) for anything that is not a well-formed chunk. Never reads
// outside `blob`, never allocates more than the limits above allow.
std::optional<Chunk> decode_chunk(std::span<const std::uint8_t> blob, std::string* error = nullptr);

// Where decode_chunk_append puts one chunk column: appended to `out` as
// value / scale (the stored unit), NaN where absent; `out` null skips it.
struct ColumnTarget {
  std::vector<double>* out = nullptr;
  double scale = 1;
};

// The reader's fast path for long runs: appends the chunk's rows straight to
// time and value columns, without building a Chunk. `targets` is indexed by
// chunk column; columns past its end, and the wall clock when `wall_ns` is
// null, are skipped: stepped over without being decoded, so that reading a
// few of many columns costs little more than those few. Whatever
// decode_chunk accepts this accepts too, with the same values; it may accept
// an overlong varint in a skipped column, which is never read. Returns the
// row count, or nullopt (with a reason in `error`) leaving every output as it
// was.
std::optional<std::size_t> decode_chunk_append(std::span<const std::uint8_t> blob,
                                               std::span<const ColumnTarget> targets, std::vector<std::int64_t>& mono_ns,
                                               std::vector<std::int64_t>* wall_ns, std::string* error = nullptr);

// The column count K of a chunk from its first bytes (any prefix that holds
// the header: 21 bytes always do), without reading the rest: what a reader
// needs to size a series before decoding it (sample_cursor.cpp, host cores).
// nullopt for a header decode_chunk would refuse.
std::optional<std::size_t> chunk_column_count(std::span<const std::uint8_t> head);

// The largest row count per chunk that keeps `columns` within the limits.
std::size_t max_chunk_rows(std::size_t columns);

// Fixed point: nullopt for NaN and infinities (a value that cannot be stored
// is absent, never a made-up number); saturates beyond the int64 range.
std::optional<std::int64_t> to_fixed(double value, double scale);
// NaN when absent.
double from_fixed(const std::optional<std::int64_t>& value, double scale);

}  // namespace gpuwatch
