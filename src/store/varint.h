// LEB128 varints and zigzag deltas over byte buffers: the encoding of the
// store's blobs (sample chunks, rollups). The reader never reads past its
// span and reports every short or malformed input as false.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace gpuwatch::blob {

// Deltas are computed modulo 2^64 so that any int64 sequence round-trips
// without signed overflow, however far apart neighbouring values are.
inline std::uint64_t wrap_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b);
}
inline std::int64_t wrap_add(std::int64_t a, std::uint64_t d) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + d);
}

inline std::uint64_t zigzag(std::uint64_t delta) {
  const auto s = static_cast<std::int64_t>(delta);
  return (delta << 1) ^ static_cast<std::uint64_t>(s >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : out_(out) {}
  void byte(std::uint8_t b) { out_.push_back(b); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<std::uint8_t>(v));
  }
  // A double as its 8 bytes (the machine's order: a store moves between
  // machines of one byte order, like SQLite's own pages do not).
  void f64(double v) {
    std::uint8_t b[8];
    std::memcpy(b, &v, 8);
    out_.insert(out_.end(), b, b + 8);
  }

 private:
  std::vector<std::uint8_t>& out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  [[nodiscard]] std::size_t remaining() const { return in_.size() - pos_; }
  bool byte(std::uint8_t& b) {
    if (pos_ >= in_.size()) return false;
    b = in_[pos_++];
    return true;
  }
  bool varint(std::uint64_t& v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      std::uint8_t b = 0;
      if (!byte(b)) return false;
      // The tenth byte may only carry the top bit of a 64-bit value.
      if (shift == 63 && b > 1) return false;
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool f64(double& v) {
    if (remaining() < 8) return false;
    std::memcpy(&v, in_.data() + pos_, 8);
    pos_ += 8;
    return true;
  }
  // Steps over `count` varints without decoding them, eight bytes at a time
  // (a varint ends at each byte with the high bit clear). Only checks that
  // they end inside the input: an overlong spelling is not noticed here, but
  // by varint() whenever the same bytes are decoded.
  bool skip_varints(std::size_t count) {
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    while (count > 0 && remaining() >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, in_.data() + pos_, 8);
      const auto ends = static_cast<std::size_t>(std::popcount(~word & kHighBits));
      if (ends >= count) break;
      count -= ends;
      pos_ += 8;
    }
    for (; count > 0; ++pos_) {
      if (pos_ >= in_.size()) return false;
      if (!(in_[pos_] & 0x80)) --count;
    }
    return true;
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

// How the decoders give up: `why` into *error when the caller wants it, and
// false, which they return.
inline bool fail(std::string* error, const char* why) {
  if (error) *error = why;
  return false;
}

}  // namespace gpuwatch::blob
