#include "store/chunk_codec.h"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "store/varint.h"

namespace gpuwatch {
namespace {

using blob::Reader;
using blob::Writer;
using blob::fail;
using blob::unzigzag;
using blob::wrap_add;
using blob::wrap_sub;
using blob::zigzag;

void encode_times(Writer& w, const std::vector<std::int64_t>& t) {
  std::int64_t prev = 0;
  std::uint64_t prev_delta = 0;
  for (std::int64_t v : t) {
    const std::uint64_t delta = wrap_sub(v, prev);
    w.varint(zigzag(delta - prev_delta));
    prev = v;
    prev_delta = delta;
  }
}

bool decode_times(Reader& r, std::size_t n, std::vector<std::int64_t>& t) {
  t.resize(n);
  std::int64_t prev = 0;
  std::uint64_t prev_delta = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = 0;
    if (!r.varint(z)) return false;
    prev_delta += unzigzag(z);
    prev = wrap_add(prev, prev_delta);
    t[i] = prev;
  }
  return true;
}

// Where decode_column puts values: start(n) once, then set(i, value) for
// each present row; rows it does not set stay absent.
struct OptionalSink {
  ChunkColumn& col;
  void start(std::size_t n) { col.assign(n, std::nullopt); }
  void set(std::size_t i, std::int64_t v) { col[i] = v; }
};
struct DoubleSink {  // appends, as stored units (value / scale), NaN where absent
  std::vector<double>& out;
  double scale;
  std::size_t base = 0;
  void start(std::size_t n) {
    base = out.size();
    out.resize(base + n, std::numeric_limits<double>::quiet_NaN());
  }
  void set(std::size_t i, std::int64_t v) { out[base + i] = static_cast<double>(v) / scale; }
};

// `sink` null: skip the column, checking only that it ends inside the blob
// (Reader::skip_varints).
template <typename Sink>
bool decode_column(Reader& r, std::size_t n, Sink* sink, std::string* error) {
  std::uint8_t tag = 0;
  if (!r.byte(tag)) return fail(error, "truncated column tag");
  if (sink) sink->start(n);
  if (tag == 0) return true;
  std::span<const std::uint8_t> bitmap;
  if (tag == 2) {
    const std::size_t bytes = (n + 7) / 8;
    if (r.remaining() < bytes) return fail(error, "truncated presence bitmap");
    bitmap = r.take(bytes);
    if (n % 8 != 0 && (bitmap.back() >> (n % 8)) != 0) {
      return fail(error, "presence bitmap has bits past the last row");
    }
  } else if (tag != 1) {
    return fail(error, "unknown column tag");
  }
  if (!sink) {
    std::size_t present = n;
    if (tag == 2) {
      present = 0;
      for (std::uint8_t b : bitmap) present += static_cast<std::size_t>(std::popcount(b));
    }
    return r.skip_varints(present) || fail(error, "truncated column values");
  }
  std::int64_t prev = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (tag == 2 && !((bitmap[i / 8] >> (i % 8)) & 1)) continue;
    std::uint64_t z = 0;
    if (!r.varint(z)) return fail(error, "truncated column values");
    prev = wrap_add(prev, unzigzag(z));
    sink->set(i, prev);
  }
  return true;
}

// Format byte and row/column counts, checked against the limits.
bool read_counts(Reader& r, std::uint64_t& n, std::uint64_t& k, std::string* error) {
  std::uint8_t format = 0;
  if (!r.byte(format)) return fail(error, "empty chunk");
  if (format != kChunkFormat) return fail(error, "unknown chunk format");
  if (!r.varint(n) || !r.varint(k)) return fail(error, "truncated chunk header");
  if (n > kChunkMaxRows || k > kChunkMaxColumns || n * k > kChunkMaxCells) {
    return fail(error, "chunk header exceeds limits");
  }
  return true;
}

// The counts, checked against the blob's length too before anything is
// allocated for them.
bool read_header(Reader& r, std::uint64_t& n, std::uint64_t& k, std::string* error) {
  if (!read_counts(r, n, k, error)) return false;
  // Each row costs at least two bytes of timestamps and each column one tag
  // byte: reject impossible headers before allocating for them.
  if (r.remaining() < 2 * n + k) return fail(error, "chunk shorter than its header says");
  return true;
}

}  // namespace

std::optional<std::size_t> chunk_column_count(std::span<const std::uint8_t> head) {
  Reader r(head);
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  if (!read_counts(r, n, k, nullptr)) return std::nullopt;
  return static_cast<std::size_t>(k);
}

std::size_t max_chunk_rows(std::size_t columns) {
  if (columns == 0) return kChunkMaxRows;
  const std::size_t by_cells = kChunkMaxCells / columns;
  return std::max<std::size_t>(1, std::min(kChunkMaxRows, by_cells));
}

std::vector<std::uint8_t> encode_chunk(const Chunk& chunk) {
  const std::size_t n = chunk.rows();
  const std::size_t k = chunk.columns.size();
  if (chunk.wall_ns.size() != n) throw std::invalid_argument("chunk: wall_ns length differs from mono_ns");
  for (const auto& col : chunk.columns) {
    if (col.size() != n) throw std::invalid_argument("chunk: column length differs from row count");
  }
  if (n > kChunkMaxRows || k > kChunkMaxColumns || n * k > kChunkMaxCells) {
    throw std::invalid_argument("chunk: too many rows or columns; split it");
  }

  std::vector<std::uint8_t> out;
  out.reserve(8 + n * 4 + n * k * 2);
  Writer w(out);
  w.byte(kChunkFormat);
  w.varint(n);
  w.varint(k);
  encode_times(w, chunk.mono_ns);
  encode_times(w, chunk.wall_ns);
  for (const auto& col : chunk.columns) {
    std::size_t present = 0;
    for (const auto& v : col) present += v.has_value();
    if (present == 0) {
      w.byte(0);
      continue;
    }
    if (present == n) {
      w.byte(1);
    } else {
      w.byte(2);
      std::vector<std::uint8_t> bitmap((n + 7) / 8, 0);
      for (std::size_t i = 0; i < n; ++i) {
        if (col[i]) bitmap[i / 8] = static_cast<std::uint8_t>(bitmap[i / 8] | (1u << (i % 8)));
      }
      out.insert(out.end(), bitmap.begin(), bitmap.end());
    }
    std::int64_t prev = 0;
    for (const auto& v : col) {
      if (!v) continue;
      w.varint(zigzag(wrap_sub(*v, prev)));
      prev = *v;
    }
  }
  return out;
}

std::optional<Chunk> decode_chunk(std::span<const std::uint8_t> blob, std::string* error) {
  Reader r(blob);
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  if (!read_header(r, n, k, error)) return std::nullopt;
  Chunk c;
  if (!decode_times(r, n, c.mono_ns) || !decode_times(r, n, c.wall_ns)) {
    fail(error, "truncated timestamps");
    return std::nullopt;
  }
  c.columns.resize(k);
  for (auto& col : c.columns) {
    OptionalSink sink{col};
    if (!decode_column(r, n, &sink, error)) return std::nullopt;
  }
  if (r.remaining() != 0) {
    fail(error, "trailing bytes after the last column");
    return std::nullopt;
  }
  return c;
}

std::optional<std::size_t> decode_chunk_append(std::span<const std::uint8_t> blob,
                                               std::span<const ColumnTarget> targets, std::vector<std::int64_t>& mono_ns,
                                               std::vector<std::int64_t>* wall_ns, std::string* error) {
  Reader r(blob);
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  if (!read_header(r, n, k, error)) return std::nullopt;
  const std::size_t mono_before = mono_ns.size();
  const std::size_t wall_before = wall_ns ? wall_ns->size() : 0;
  std::vector<std::size_t> column_before;
  for (const ColumnTarget& t : targets) column_before.push_back(t.out ? t.out->size() : 0);
  // On any error the outputs go back to how they were: no half chunk.
  const auto undo = [&] {
    mono_ns.resize(mono_before);
    if (wall_ns) wall_ns->resize(wall_before);
    for (std::size_t j = 0; j < targets.size(); ++j) {
      if (targets[j].out) targets[j].out->resize(column_before[j]);
    }
    return std::nullopt;
  };
  std::vector<std::int64_t> times;
  for (std::vector<std::int64_t>* clock : {&mono_ns, wall_ns}) {
    if (!clock) {
      if (r.skip_varints(n)) continue;
      fail(error, "truncated timestamps");
      return undo();
    }
    if (!decode_times(r, n, times)) {
      fail(error, "truncated timestamps");
      return undo();
    }
    clock->insert(clock->end(), times.begin(), times.end());
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (j < targets.size() && targets[j].out) {
      DoubleSink sink{*targets[j].out, targets[j].scale};
      if (!decode_column(r, n, &sink, error)) return undo();
    } else if (!decode_column<DoubleSink>(r, n, nullptr, error)) {
      return undo();
    }
  }
  if (r.remaining() != 0) {
    fail(error, "trailing bytes after the last column");
    return undo();
  }
  return static_cast<std::size_t>(n);
}

std::optional<std::int64_t> to_fixed(double value, double scale) {
  const double x = value * scale;
  if (!std::isfinite(x)) return std::nullopt;
  // 2^63 is exactly representable; llround beyond it is undefined.
  constexpr double kLimit = 9223372036854775808.0;
  if (x >= kLimit) return std::numeric_limits<std::int64_t>::max();
  if (x <= -kLimit) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(std::llround(x));
}

double from_fixed(const std::optional<std::int64_t>& value, double scale) {
  // Division, not multiplication by 1/scale: 12345 / 1000 is exactly the
  // double nearest 12.345, which is what was recorded.
  return value ? static_cast<double>(*value) / scale : std::nan("");
}

}  // namespace gpuwatch
