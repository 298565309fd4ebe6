// One column's per-minute rollups (core/rollup.h), every minute of a run, as
// one blob of the `rollups` table.
//
// Layout (varints LEB128, "zz" zigzag-mapped signed, f64 the 8 bytes of a double):
//   u8      format (kRollupFormat)
//   varint  number of minutes
//   per minute, ascending:
//     zz      minute index minus the previous one's (the first from 0)
//     varint  count; varint weight in whole ns
//     f64     mean, sum of squared deviations, min, max
//     u8      1: exact values, 0: buckets
//     varint  number of bins
//     per bin, ascending: zz key minus the previous key (the first from 0),
//             varint weight in whole ns
// A key is the value in the column's fixed point (llround(value x scale))
// when exact, else its bucket (rollup_bucket_key).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/rollup.h"

namespace gpuwatch {

inline constexpr std::uint8_t kRollupFormat = 1;

std::vector<std::uint8_t> encode_rollups(std::span<const ColumnRollup> minutes, double scale);

// The same blob in pieces, for columns too long to hold their minutes: the
// header (format and minute count), then each minute appended to `out`
// after the one before it (`prev_minute`: that minute's index, 0 for the
// first). The header's length is known before the minutes are.
void encode_rollups_header(std::vector<std::uint8_t>& out, std::uint64_t minutes);
void encode_rollup_minute(std::vector<std::uint8_t>& out, const ColumnRollup& m, std::int64_t prev_minute, double scale);

// Total over arbitrary bytes: nullopt (and a reason in `error`) for anything
// that is not a well-formed blob; allocates no more than the blob's size allows.
std::optional<std::vector<ColumnRollup>> decode_rollups(std::span<const std::uint8_t> blob, double scale,
                                                        std::string* error = nullptr);

// The same a minute at a time, for columns too long to hold decoded: each
// goes to `fn` as it is read. False (and a reason) where decode_rollups
// gives nullopt, possibly after some minutes went to `fn`.
bool for_each_rollup_minute(std::span<const std::uint8_t> blob, double scale,
                            const std::function<void(ColumnRollup&&)>& fn, std::string* error = nullptr);

}  // namespace gpuwatch
