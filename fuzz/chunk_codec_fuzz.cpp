// The chunk decoder on arbitrary bytes: it must return or reject, never crash
// or read out of bounds, and whatever it accepts must survive a round trip:
// encode(decoded) decodes to the same chunk, and encoding that again gives
// the same bytes (the encoder is deterministic, so its output is canonical
// even where the decoder accepts a looser spelling, e.g. an overlong varint).
//
// The reader's fast path (decode_chunk_append) must agree: reading every
// column it accepts exactly what decode_chunk accepts; reading some, with the
// rest and the wall clock skipped, it accepts at least that, with the same
// values in the columns it reads.
//
// chunk_column_count, from the header's bytes alone, must agree with the
// decoder on every chunk it accepts.
//
// The same bytes also drive the encoder directly: a small chunk with
// arbitrary int64 timestamps and values (and absent cells) built from the
// input must decode to itself, which covers the modulo-2^64 delta paths that
// valid recordings rarely reach.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "store/chunk_codec.h"

namespace {

// Every column read (`every` = 1) or every other one, the wall clock with them.
bool append_agrees(std::span<const std::uint8_t> blob, const std::optional<gpuwatch::Chunk>& chunk, std::size_t every) {
  constexpr std::size_t kColumns = gpuwatch::kChunkMaxColumns;
  std::vector<std::vector<double>> out(kColumns);
  std::vector<gpuwatch::ColumnTarget> targets(kColumns);
  for (std::size_t j = 0; j < kColumns; j += every) targets[j] = {&out[j], 1};
  std::vector<std::int64_t> mono;
  std::vector<std::int64_t> wall;
  const auto rows = gpuwatch::decode_chunk_append(blob, targets, mono, every == 1 ? &wall : nullptr);
  if (!chunk) return every != 1 || !rows;
  if (!rows || *rows != chunk->rows() || mono != chunk->mono_ns) return false;
  if (every == 1 && wall != chunk->wall_ns) return false;
  for (std::size_t j = 0; j < chunk->columns.size(); j += every) {
    for (std::size_t i = 0; i < *rows; ++i) {
      const auto& v = chunk->columns[j][i];
      if (v ? out[j][i] != static_cast<double>(*v) : !std::isnan(out[j][i])) return false;
    }
  }
  return true;
}

void check_decoded(std::span<const std::uint8_t> blob) {
  std::string error;
  const auto chunk = gpuwatch::decode_chunk(blob, &error);
  if (!append_agrees(blob, chunk, 1) || !append_agrees(blob, chunk, 2)) __builtin_trap();
  // The header alone (what the sample cursor reads of host chunks) must give
  // the column count of every chunk the decoder accepts, from any prefix
  // that holds it.
  const auto columns = gpuwatch::chunk_column_count(blob.first(std::min<std::size_t>(blob.size(), 21)));
  if (chunk && (!columns || *columns != chunk->columns.size())) __builtin_trap();
  if (!chunk) {
    if (error.empty()) __builtin_trap();  // every rejection says why
    return;
  }
  if (chunk->wall_ns.size() != chunk->rows()) __builtin_trap();
  for (const auto& col : chunk->columns) {
    if (col.size() != chunk->rows()) __builtin_trap();
  }
  const auto bytes = gpuwatch::encode_chunk(*chunk);  // within limits: must not throw
  if (bytes.size() > blob.size()) __builtin_trap();   // canonical form is never longer
  const auto again = gpuwatch::decode_chunk(bytes);
  if (!again || !(*again == *chunk)) __builtin_trap();
  if (gpuwatch::encode_chunk(*again) != bytes) __builtin_trap();
}

void check_encoded(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t rows = in.ConsumeIntegralInRange<std::size_t>(0, 40);
  const std::size_t cols = in.ConsumeIntegralInRange<std::size_t>(0, 12);
  gpuwatch::Chunk c;
  c.mono_ns.reserve(rows);
  c.wall_ns.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    c.mono_ns.push_back(in.ConsumeIntegral<std::int64_t>());
    c.wall_ns.push_back(in.ConsumeIntegral<std::int64_t>());
  }
  c.columns.resize(cols);
  for (auto& col : c.columns) {
    const auto mode = in.ConsumeIntegralInRange<int>(0, 2);  // absent, present, mixed
    col.resize(rows);
    for (auto& cell : col) {
      if (mode == 1 || (mode == 2 && in.ConsumeBool())) cell = in.ConsumeIntegral<std::int64_t>();
    }
  }
  const auto bytes = gpuwatch::encode_chunk(c);
  std::string error;
  const auto back = gpuwatch::decode_chunk(bytes, &error);
  if (!back || !(*back == c)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_decoded({data, size});
  check_encoded(data, size);
  return 0;
}
