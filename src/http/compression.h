// Answers compressed for clients that say they take it: a long run's series,
// report and compare are hundreds of KB of JSON that gzip shrinks five- to
// tenfold, which is what a dashboard over a slow link (an SSH tunnel to a
// training node) waits for.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// Answers shorter than this go as they are: compressing them saves less than
// the header it adds.
inline constexpr std::size_t kMinCompressedBytes = 1024;

// Whether an Accept-Encoding header's value accepts gzip (RFC 9110, 12.5.3):
// "gzip" or "x-gzip" or "*" listed, with no q=0. Any bytes: a client may send
// anything; what does not parse accepts nothing.
bool accepts_gzip(std::string_view accept_encoding);

// `body` in the gzip format (RFC 1952); nullopt when zlib fails (out of
// memory): the answer then goes uncompressed.
std::optional<std::string> gzip_compress(std::string_view body);

}  // namespace gpuwatch
