#include "store/detector_codec.h"

#include <cmath>
#include <limits>

#include "store/varint.h"

namespace gpuwatch {
namespace {

enum : std::uint8_t { kHasIdle = 1, kHasMemory = 2, kHasPower = 4, kHasCounter = 8, kHasLink = 16 };
constexpr std::uint8_t kKnownFlags = kHasIdle | kHasMemory | kHasPower | kHasCounter | kHasLink;
// The smallest encodings: what bounds the counts a blob may claim before anything is allocated.
constexpr std::size_t kMinDetectorMinuteBytes = 4;
constexpr std::size_t kMinDetectorEntryBytes = 2;

// Encoding, with times relative to the minute's last row.
struct Enc {
  blob::Writer w;
  std::int64_t base_ns = 0;
  void time(std::int64_t t) { w.varint(blob::zigzag(blob::wrap_sub(t, base_ns))); }
  void timed(const TimedValue& v) {
    time(v.time_ns);
    w.f64(v.value);
  }
};

void encode_idle(Enc& e, const IdleMinute& m) {
  e.time(m.first_busy_ns);
  e.time(m.last_busy_ns);
  e.w.varint(m.busy_samples);
  e.w.f64(m.idle_s);
  e.w.f64(m.idle_before_busy_s);
  e.w.f64(m.idle_after_busy_s);
  e.w.varint(m.gaps);
  e.w.f64(m.gap_total_s);
  e.w.varint(m.longest.size());
  for (const GapRecord& g : m.longest) {
    e.time(g.start_ns);
    e.w.f64(g.duration_s);
  }
  e.w.f64(m.period_sum_s);
  e.w.f64(m.period_sum_sq_s2);
  e.w.varint(m.periods.size());
  std::int64_t prev = 0;
  for (const PeriodBin& b : m.periods) {
    e.w.varint(blob::zigzag(blob::wrap_sub(b.key, prev)));
    e.w.varint(b.count);
    prev = b.key;
  }
}

void encode_memory(Enc& e, const MemoryMinute& m) {
  e.w.varint(m.samples);
  e.time(m.first_ns);
  e.time(m.last_ns);
  for (double v : {m.weight_s, m.mean_t_s, m.mean_bytes, m.m2_t, m.c_tv, m.min_bytes, m.max_bytes}) e.w.f64(v);
}

void encode_link(Enc& e, const LinkMinute& m) {
  e.w.varint(static_cast<std::uint64_t>(m.max_gen));
  e.w.varint(static_cast<std::uint64_t>(m.max_width));
  e.w.varint(m.busy.size());
  for (const LinkBusyTime& b : m.busy) {
    e.w.varint(static_cast<std::uint64_t>(b.gen));
    e.w.varint(static_cast<std::uint64_t>(b.width));
    e.w.f64(b.busy_s);
  }
}

std::uint8_t flags_of(const DetectorMinute& m) {
  std::uint8_t f = 0;
  if (m.idle) f |= kHasIdle;
  if (m.memory) f |= kHasMemory;
  if (m.energy.power_first && m.energy.power_last) f |= kHasPower;
  if (m.energy.counter_first && m.energy.counter_last) f |= kHasCounter;
  if (m.link) f |= kHasLink;
  return f;
}

void encode_detector_minute(Enc& e, const DetectorMinute& m, std::int64_t prev_minute, std::int64_t prev_last_ns) {
  e.w.varint(blob::zigzag(blob::wrap_sub(m.minute, prev_minute)));
  e.w.varint(m.rows);
  e.w.varint(blob::zigzag(blob::wrap_sub(m.last_row_ns, prev_last_ns)));
  e.base_ns = m.last_row_ns;
  const std::uint8_t flags = flags_of(m);
  e.w.byte(flags);
  if (flags & kHasIdle) encode_idle(e, *m.idle);
  if (flags & kHasMemory) encode_memory(e, *m.memory);
  if (flags & kHasPower) {
    e.timed(*m.energy.power_first);
    e.timed(*m.energy.power_last);
    e.w.f64(m.energy.power_joules);
  }
  if (flags & kHasCounter) {
    e.timed(*m.energy.counter_first);
    e.timed(*m.energy.counter_last);
    e.w.f64(m.energy.counter_increase_j);
  }
  if (flags & kHasLink) encode_link(e, *m.link);
}

// Decoding: every read checked, every double finite (so that what decodes
// encodes back to itself), every count bounded by the bytes left.
struct Dec {
  blob::Reader r;
  std::int64_t base_ns = 0;
  bool ok = true;

  std::uint64_t varint() {
    std::uint64_t v = 0;
    ok = ok && r.varint(v);
    return v;
  }
  std::int64_t zz() { return static_cast<std::int64_t>(blob::unzigzag(varint())); }
  std::int64_t time() { return blob::wrap_add(base_ns, blob::unzigzag(varint())); }
  double f64() {
    double v = 0;
    ok = ok && r.f64(v) && std::isfinite(v);
    return v;
  }
  std::size_t count() {
    const std::uint64_t n = varint();
    ok = ok && n <= r.remaining() / kMinDetectorEntryBytes;
    return ok ? static_cast<std::size_t>(n) : 0;
  }
  int small_int() {
    const std::uint64_t v = varint();
    ok = ok && v <= static_cast<std::uint64_t>(std::numeric_limits<int>::max());
    return static_cast<int>(v);
  }
  TimedValue timed() {
    const std::int64_t t = time();
    return {t, f64()};
  }
};

IdleMinute decode_idle(Dec& d) {
  IdleMinute m;
  m.first_busy_ns = d.time();
  m.last_busy_ns = d.time();
  m.busy_samples = d.varint();
  m.idle_s = d.f64();
  m.idle_before_busy_s = d.f64();
  m.idle_after_busy_s = d.f64();
  m.gaps = d.varint();
  m.gap_total_s = d.f64();
  m.longest.resize(d.count());
  for (GapRecord& g : m.longest) {
    g.start_ns = d.time();
    g.duration_s = d.f64();
  }
  m.period_sum_s = d.f64();
  m.period_sum_sq_s2 = d.f64();
  m.periods.resize(d.count());
  std::int64_t key = 0;
  for (PeriodBin& b : m.periods) {
    key = blob::wrap_add(key, static_cast<std::uint64_t>(d.zz()));
    b.key = key;
    b.count = d.varint();
  }
  return m;
}

MemoryMinute decode_memory(Dec& d) {
  MemoryMinute m;
  m.samples = d.varint();
  m.first_ns = d.time();
  m.last_ns = d.time();
  for (double* v : {&m.weight_s, &m.mean_t_s, &m.mean_bytes, &m.m2_t, &m.c_tv, &m.min_bytes, &m.max_bytes}) {
    *v = d.f64();
  }
  return m;
}

LinkMinute decode_link(Dec& d) {
  LinkMinute m;
  m.max_gen = d.small_int();
  m.max_width = d.small_int();
  m.busy.resize(d.count());
  for (LinkBusyTime& b : m.busy) {
    b.gen = d.small_int();
    b.width = d.small_int();
    b.busy_s = d.f64();
  }
  return m;
}

bool decode_detector_minute(Dec& d, DetectorMinute& m, std::int64_t prev_minute, std::int64_t prev_last_ns) {
  m.minute = blob::wrap_add(prev_minute, static_cast<std::uint64_t>(d.zz()));
  m.rows = d.varint();
  m.last_row_ns = blob::wrap_add(prev_last_ns, static_cast<std::uint64_t>(d.zz()));
  d.base_ns = m.last_row_ns;
  std::uint8_t flags = 0;
  if (!d.ok || !d.r.byte(flags) || (flags & ~kKnownFlags) != 0) return false;
  if (flags & kHasIdle) m.idle = decode_idle(d);
  if (flags & kHasMemory) m.memory = decode_memory(d);
  if (flags & kHasPower) {
    m.energy.power_first = d.timed();
    m.energy.power_last = d.timed();
    m.energy.power_joules = d.f64();
  }
  if (flags & kHasCounter) {
    m.energy.counter_first = d.timed();
    m.energy.counter_last = d.timed();
    m.energy.counter_increase_j = d.f64();
  }
  if (flags & kHasLink) m.link = decode_link(d);
  return d.ok;
}

}  // namespace

void DetectorMinutesEncoder::add(const DetectorMinute& m) {
  Enc e{blob::Writer(body_)};
  encode_detector_minute(e, m, prev_minute_, prev_last_ns_);
  prev_minute_ = m.minute;
  prev_last_ns_ = m.last_row_ns;
  ++count_;
}

std::vector<std::uint8_t> DetectorMinutesEncoder::finish() const {
  std::vector<std::uint8_t> out;
  blob::Writer w(out);
  w.byte(kDetectorFormat);
  w.varint(count_);
  out.insert(out.end(), body_.begin(), body_.end());
  return out;
}

std::vector<std::uint8_t> encode_detector_minutes(std::span<const DetectorMinute> minutes) {
  DetectorMinutesEncoder encoder;
  for (const DetectorMinute& m : minutes) encoder.add(m);
  return encoder.finish();
}

std::optional<std::vector<DetectorMinute>> decode_detector_minutes(std::span<const std::uint8_t> bytes,
                                                                   std::string* error) {
  Dec d{blob::Reader(bytes)};
  std::uint8_t format = 0;
  if (!d.r.byte(format) || format != kDetectorFormat) {
    blob::fail(error, "unknown detector minutes format");
    return std::nullopt;
  }
  const std::uint64_t n = d.varint();
  if (!d.ok || n > d.r.remaining() / kMinDetectorMinuteBytes) {
    blob::fail(error, "bad minute count");
    return std::nullopt;
  }
  std::vector<DetectorMinute> out(static_cast<std::size_t>(n));
  std::int64_t prev_minute = 0;
  std::int64_t prev_last_ns = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!decode_detector_minute(d, out[i], prev_minute, prev_last_ns)) {
      blob::fail(error, "truncated or malformed minute");
      return std::nullopt;
    }
    if (i > 0 && out[i].minute <= prev_minute) {
      blob::fail(error, "minutes out of order");
      return std::nullopt;
    }
    prev_minute = out[i].minute;
    prev_last_ns = out[i].last_row_ns;
  }
  if (d.r.remaining() != 0) {
    blob::fail(error, "trailing bytes");
    return std::nullopt;
  }
  return out;
}

}  // namespace gpuwatch
