#include "store/rollup_codec.h"

#include <array>
#include <cmath>
#include <optional>

#include "store/varint.h"

namespace gpuwatch {
namespace {

// The smallest encoding of a minute and of a bin: what bounds the counts a
// header may claim before anything is allocated.
constexpr std::size_t kMinMinuteBytes = 1 + 1 + 1 + 4 * 8 + 1 + 1;
constexpr std::size_t kMinBinBytes = 2;

std::int64_t key_of(double value, bool exact, double scale) {
  return exact ? std::llround(value * scale) : rollup_bucket_key(value);
}

// Whole nanoseconds stay exact in a double up to 2^53 (104 days).
constexpr std::uint64_t kMaxExact = std::uint64_t{1} << 53;

// A bin's value from its key; nullopt for a key that encoding no value gives.
// A long run's rollups ask for the same few thousand bucket keys millions of
// times, each a pow() and a log() (a fifth of `compare`'s time at 100 M
// samples): a direct-mapped cache, per thread, of the keys checked already.
std::optional<double> bin_value(std::int64_t key, bool exact, double scale) {
  if (exact) {
    if (key < -kRollupMaxFixed || key > kRollupMaxFixed) return std::nullopt;
    return static_cast<double>(key) / scale;
  }
  struct Slot {
    std::int64_t key = 0;
    double value = 0;
    bool checked = false;
  };
  constexpr std::size_t kSlots = 4096;  // a power of two: the key's low bits pick the slot
  thread_local std::array<Slot, kSlots> cache{};
  Slot& slot = cache[static_cast<std::uint64_t>(key) & (kSlots - 1)];
  if (slot.checked && slot.key == key) return slot.value;
  const double v = rollup_bucket_value(key);
  if (!std::isfinite(v) || rollup_bucket_key(v) != key) return std::nullopt;
  slot = {key, v, true};
  return v;
}

std::uint64_t whole_ns(double w) { return w > 0 ? static_cast<std::uint64_t>(std::llround(w)) : 0; }

bool decode_minute(blob::Reader& r, std::int64_t& minute, double scale, ColumnRollup& m, std::string* error) {
  std::uint64_t z = 0;
  std::uint64_t count = 0;
  std::uint64_t weight = 0;
  std::uint8_t exact = 0;
  std::uint64_t bins = 0;
  if (!r.varint(z) || !r.varint(count) || !r.varint(weight)) return blob::fail(error, "truncated minute");
  if (!r.f64(m.mean) || !r.f64(m.m2) || !r.f64(m.min) || !r.f64(m.max) || !r.byte(exact) || !r.varint(bins)) {
    return blob::fail(error, "truncated minute");
  }
  minute = blob::wrap_add(minute, blob::unzigzag(z));
  m.minute = minute;
  m.count = static_cast<std::size_t>(count);
  m.weight_ns = static_cast<double>(weight);
  m.exact = exact == 1;
  if (count == 0 || weight == 0 || weight > kMaxExact || exact > 1) return blob::fail(error, "empty minute");
  if (!std::isfinite(m.mean) || !std::isfinite(m.m2) || !std::isfinite(m.min) || !std::isfinite(m.max) ||
      m.min > m.max || m.m2 < 0) {
    return blob::fail(error, "minute statistics out of range");
  }
  if (bins == 0 || bins > r.remaining() / kMinBinBytes) return blob::fail(error, "bad bin count");
  m.histogram.resize(static_cast<std::size_t>(bins));
  std::int64_t key = 0;
  for (std::size_t b = 0; b < m.histogram.size(); ++b) {
    std::uint64_t w = 0;
    if (!r.varint(z) || !r.varint(w)) return blob::fail(error, "truncated bins");
    const std::uint64_t step = blob::unzigzag(z);
    if (b > 0 && (step == 0 || static_cast<std::int64_t>(step) < 0)) return blob::fail(error, "bins out of order");
    key = blob::wrap_add(key, step);
    const std::optional<double> value = bin_value(key, m.exact, scale);
    if (!value || w > kMaxExact) return blob::fail(error, "bin out of range");
    m.histogram[b] = {*value, static_cast<double>(w)};
  }
  return true;
}

}  // namespace

void encode_rollups_header(std::vector<std::uint8_t>& out, std::uint64_t minutes) {
  blob::Writer w(out);
  w.byte(kRollupFormat);
  w.varint(minutes);
}

void encode_rollup_minute(std::vector<std::uint8_t>& out, const ColumnRollup& m, std::int64_t prev_minute,
                          double scale) {
  blob::Writer w(out);
  w.varint(blob::zigzag(blob::wrap_sub(m.minute, prev_minute)));
  w.varint(m.count);
  w.varint(whole_ns(m.weight_ns));
  w.f64(m.mean);
  w.f64(m.m2);
  w.f64(m.min);
  w.f64(m.max);
  w.byte(m.exact ? 1 : 0);
  w.varint(m.histogram.size());
  std::int64_t prev_key = 0;
  for (const RollupBin& b : m.histogram) {
    const std::int64_t key = key_of(b.value, m.exact, scale);
    w.varint(blob::zigzag(blob::wrap_sub(key, prev_key)));
    w.varint(whole_ns(b.weight_ns));
    prev_key = key;
  }
}

std::vector<std::uint8_t> encode_rollups(std::span<const ColumnRollup> minutes, double scale) {
  std::vector<std::uint8_t> out;
  encode_rollups_header(out, minutes.size());
  std::int64_t prev_minute = 0;
  for (const ColumnRollup& m : minutes) {
    encode_rollup_minute(out, m, prev_minute, scale);
    prev_minute = m.minute;
  }
  return out;
}

std::optional<std::vector<ColumnRollup>> decode_rollups(std::span<const std::uint8_t> bytes, double scale,
                                                        std::string* error) {
  blob::Reader r(bytes);
  std::uint8_t format = 0;
  std::uint64_t n = 0;
  if (!r.byte(format) || format != kRollupFormat) {
    blob::fail(error, "unknown rollup format");
    return std::nullopt;
  }
  if (!r.varint(n) || n > r.remaining() / kMinMinuteBytes) {
    blob::fail(error, "bad minute count");
    return std::nullopt;
  }
  std::vector<ColumnRollup> out(static_cast<std::size_t>(n));
  std::int64_t minute = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t before = minute;
    if (!decode_minute(r, minute, scale, out[i], error)) return std::nullopt;
    if (i > 0 && minute <= before) {
      blob::fail(error, "minutes out of order");
      return std::nullopt;
    }
  }
  if (r.remaining() != 0) {
    blob::fail(error, "trailing bytes");
    return std::nullopt;
  }
  return out;
}

}  // namespace gpuwatch
