#include "http/compression.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/lines.h"

namespace gpuwatch {

namespace {

// Fast over best: the answers are made per request on a small machine, and
// level 1 already takes JSON to a fifth or less.
constexpr int kGzipLevel = 1;
// zlib's window bits for a gzip wrapper rather than zlib's own (15 + 16).
constexpr int kGzipWindowBits = 31;
constexpr int kMemLevel = 8;

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The weight of one list element ("gzip;q=0.5"): 1 without a q, 0 for q=0
// or a q that is not a number.
double weight_of(std::string_view parameters) {
  while (!parameters.empty()) {
    const std::size_t semi = std::min(parameters.find(';'), parameters.size());
    const std::string_view p = trimmed(parameters.substr(0, semi));
    parameters.remove_prefix(std::min(parameters.size(), semi + 1));
    if (p.size() < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=') continue;
    const std::string_view number = trimmed(p.substr(2));
    double q = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), q);
    if (ec != std::errc{} || end != number.data() + number.size()) return 0;
    return q;
  }
  return 1;
}

}  // namespace

bool accepts_gzip(std::string_view header) {
  bool accepted = false;
  while (!header.empty()) {
    const std::size_t comma = std::min(header.find(','), header.size());
    const std::string_view element = header.substr(0, comma);
    header.remove_prefix(std::min(header.size(), comma + 1));
    const std::size_t semi = std::min(element.find(';'), element.size());
    const std::string_view coding = trimmed(element.substr(0, semi));
    const double q = semi < element.size() ? weight_of(element.substr(semi + 1)) : 1;
    if (equals_ignoring_case(coding, "gzip") || equals_ignoring_case(coding, "x-gzip")) {
      if (!(q > 0)) return false;  // refused by name: that wins over "*"
      accepted = true;
    } else if (coding == "*" && q > 0) {
      accepted = true;
    }
  }
  return accepted;
}

std::optional<std::string> gzip_compress(std::string_view body) {
  z_stream z{};
  if (deflateInit2(&z, kGzipLevel, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&z, static_cast<uLong>(body.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));  // zlib's API is not const
  z.avail_in = static_cast<uInt>(body.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  const std::size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (status != Z_STREAM_END) return std::nullopt;
  out.resize(written);
  return out;
}

}  // namespace gpuwatch
