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

// A bucket's representative and whether encoding it gives the key back: a
// pow and a log, for every bin of every minute (a two-week run decodes
// millions). The same few hundred keys recur minute after minute, so each
// thread keeps the last answer per slot.
struct BucketAnswer {
  std::int64_t key = 0;
  double value = 0;
  bool valid = false;
  bool known = false;
};

const BucketAnswer& bucket_answer(std::int64_t key) {
  thread_local std::array<BucketAnswer, 4096> cache{};
  BucketAnswer& a = cache[static_cast<std::uint64_t>(key) % cache.size()];
  if (!a.known || a.key != key) {
    const double v = rollup_bucket_value(key);
    a = {key, v, std::isfinite(v) && rollup_bucket_key(v) == key, true};
  }
  return a;
}

double value_of(std::int64_t key, bool exact, double scale) {
  return exact ? static_cast<double>(key) / scale : bucket_answer(key).value;
}

// Whole nanoseconds stay exact in a double up to 2^53 (104 days).
constexpr std::uint64_t kMaxExact = std::uint64_t{1} << 53;

// Whether `key` is one that encoding its value gives back.
bool valid_key(std::int64_t key, bool exact) {
  if (exact) return key >= -kRollupMaxFixed && key <= kRollupMaxFixed;
  return bucket_answer(key).valid;
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
    if (!valid_key(key, m.exact) || w > kMaxExact) return blob::fail(error, "bin out of range");
    m.histogram[b] = {value_of(key, m.exact, scale), static_cast<double>(w)};
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

bool for_each_rollup_minute(std::span<const std::uint8_t> bytes, double scale,
                            const std::function<void(ColumnRollup&&)>& fn, std::string* error) {
  blob::Reader r(bytes);
  std::uint8_t format = 0;
  std::uint64_t n = 0;
  if (!r.byte(format) || format != kRollupFormat) return blob::fail(error, "unknown rollup format");
  if (!r.varint(n) || n > r.remaining() / kMinMinuteBytes) return blob::fail(error, "bad minute count");
  std::int64_t minute = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::int64_t before = minute;
    ColumnRollup m;
    if (!decode_minute(r, minute, scale, m, error)) return false;
    if (i > 0 && minute <= before) return blob::fail(error, "minutes out of order");
    fn(std::move(m));
  }
  if (r.remaining() != 0) return blob::fail(error, "trailing bytes");
  return true;
}

std::optional<std::vector<ColumnRollup>> decode_rollups(std::span<const std::uint8_t> bytes, double scale,
                                                        std::string* error) {
  std::vector<ColumnRollup> out;
  if (!for_each_rollup_minute(bytes, scale, [&out](ColumnRollup&& m) { out.push_back(std::move(m)); }, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace gpuwatch
