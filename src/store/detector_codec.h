// A device's detector minutes (core/detector_minutes.h) as one blob of the
// `rollups` table, under the name kDetectorMinutesName beside the columns'
// blobs. Builds that do not know the name skip it (it is no metric), and a
// run whose rollups lack it (finished by an older gpuwatch) has its
// detectors read from the samples, as before: the blob only makes reading
// faster. Its own format byte versions it apart from the columns' blobs.
//
// Layout (varints LEB128, "zz" zigzag-mapped signed, f64 the 8 bytes of a double):
//   u8 format (kDetectorFormat); varint number of minutes; per minute, ascending:
//     zz minute minus the previous one's; varint rows; zz last row's time
//     minus the previous minute's (the first from 0); u8 flags (kHas*);
//     every other time below is zz relative to the minute's last row.
//     idle:    first and last busy, varint busy samples, f64 idle, idle
//              before and after busy (s), varint gaps, f64 their total, varint
//              n, n x (start, f64 duration), f64 period sum and sum of squares,
//              varint n, n x (zz key minus the previous, varint count)
//     memory:  varint samples, first, last, f64 weight, mean t, mean bytes,
//              m2_t, c_tv, min, max
//     power:   first (time, f64), last (time, f64), f64 joules
//     counter: first (time, f64), last (time, f64), f64 increase
//     link:    varint max gen, max width, n, n x (varint gen, width, f64 s)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/detector_minutes.h"

namespace gpuwatch {

inline constexpr std::uint8_t kDetectorFormat = 1;
inline constexpr std::string_view kDetectorMinutesName = "detector_minutes";

std::vector<std::uint8_t> encode_detector_minutes(std::span<const DetectorMinute> minutes);

// The same blob a minute at a time (the finish streams them): the minutes'
// bytes are kept, not the minutes, and the header goes first at the end.
class DetectorMinutesEncoder {
 public:
  void add(const DetectorMinute& minute);
  [[nodiscard]] std::vector<std::uint8_t> finish() const;

 private:
  std::vector<std::uint8_t> body_;
  std::uint64_t count_ = 0;
  std::int64_t prev_minute_ = 0;
  std::int64_t prev_last_ns_ = 0;
};

// Total over arbitrary bytes: nullopt (and a reason in `error`) for anything
// that is not a well-formed blob; allocates no more than the blob's size allows.
std::optional<std::vector<DetectorMinute>> decode_detector_minutes(std::span<const std::uint8_t> blob,
                                                                   std::string* error = nullptr);

}  // namespace gpuwatch
