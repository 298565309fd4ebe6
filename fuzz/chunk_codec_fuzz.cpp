// The chunk decoder on arbitrary bytes: it must return or reject, never crash
// or read out of bounds, and whatever it accepts must survive a round trip:
// encode(decoded) decodes to the same chunk, and encoding that again gives
// the same bytes (the encoder is deterministic, so its output is canonical
// even where the decoder accepts a looser spelling, e.g. an overlong varint).
//
// The same bytes also drive the encoder directly: a small chunk with
// arbitrary int64 timestamps and values (and absent cells) built from the
// input must decode to itself, which covers the modulo-2^64 delta paths that
// valid recordings rarely reach.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "store/chunk_codec.h"

namespace {

void check_decoded(std::span<const std::uint8_t> blob) {
  std::string error;
  const auto chunk = gpuwatch::decode_chunk(blob, &error);
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
