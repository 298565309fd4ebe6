// The rollup decoders (store/rollup_codec.h, and store/detector_codec.h when
// the first byte is odd above 127) on arbitrary bytes: each must
// return or reject with a reason, never crash or read out of bounds, and what
// it accepts must survive a round trip: its encoding decodes to the same
// minutes and is never longer than the input (the encoder's form is canonical).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "store/detector_codec.h"
#include "store/rollup_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] >= 128 && data[0] % 2 == 1) {
    const std::span<const std::uint8_t> blob(data + 1, size - 1);
    std::string error;
    const auto minutes = gpuwatch::decode_detector_minutes(blob, &error);
    if (!minutes) {
      if (error.empty()) __builtin_trap();
      return 0;
    }
    const auto bytes = gpuwatch::encode_detector_minutes(*minutes);
    if (bytes.size() > blob.size()) __builtin_trap();
    const auto again = gpuwatch::decode_detector_minutes(bytes);
    if (!again || *again != *minutes) __builtin_trap();
    return 0;
  }
  // The first byte picks the column's scale, as the catalogue's would.
  constexpr double kScales[] = {1, 100, 1000, 1e6};
  const double scale = kScales[data[0] % 4];
  const std::span<const std::uint8_t> blob(data + 1, size - 1);
  std::string error;
  const auto minutes = gpuwatch::decode_rollups(blob, scale, &error);
  if (!minutes) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  const auto bytes = gpuwatch::encode_rollups(*minutes, scale);
  if (bytes.size() > blob.size()) __builtin_trap();
  const auto again = gpuwatch::decode_rollups(bytes, scale);
  if (!again || *again != *minutes) __builtin_trap();
  return 0;
}
