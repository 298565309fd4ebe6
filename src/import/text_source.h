// The bytes an importer reads, a window at a time: a file read in chunks
// (so that a 1 GB export costs a few MB of buffer, not 1 GB) or text already
// in memory (tests, the fuzzer: one window, nothing copied).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace gpuwatch {

// JSON's whitespace: what TextSource::skip_space and the JSON scanner skip
// between values.
inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class TextSource {
 public:
  // All of `text`, which must outlive the source.
  explicit TextSource(std::string_view text);
  // `text` handed out chunk_bytes at a time, as a file would be (tests and
  // the fuzzer check that chunk boundaries change nothing).
  TextSource(std::string_view text, std::size_t chunk_bytes);
  // A regular file. Throws ImportError for anything else (a directory, a
  // device such as /dev/zero, a FIFO, a socket) and for a file that cannot
  // be opened.
  explicit TextSource(const std::filesystem::path& path);
  ~TextSource();
  TextSource(const TextSource&) = delete;
  TextSource& operator=(const TextSource&) = delete;

  // The bytes read and not yet consumed. Valid until the next more() or consume().
  [[nodiscard]] std::string_view window() const { return {data_ + begin_, end_ - begin_}; }
  // Reads at least as many bytes again as the window holds (so that a record
  // that does not fit is found in O(its size) reads). False at the end.
  bool more();
  // Drops the first n bytes of the window.
  void consume(std::size_t n) { begin_ += n; }
  // Offset in the text of window()'s first byte.
  [[nodiscard]] std::uint64_t offset() const { return consumed_before_ + begin_; }

  // Consumes spaces, tabs and newlines, reading on as needed; false when
  // the text ends before anything else.
  bool skip_space();
  // The same after a UTF-8 byte-order mark, if the window starts with one.
  bool skip_bom_and_space();
  // Reads until the window holds n bytes or the text ends; whether it does.
  bool ensure(std::size_t n);

 private:
  std::string buffer_;  // files only
  const char* data_ = nullptr;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::uint64_t consumed_before_ = 0;  // bytes dropped from the buffer's front
  UniqueFd fd_;  // files only; closed at the end of the text
  std::string_view unread_;  // chunked memory: what more() has not handed out
  std::size_t chunk_bytes_ = 0;
};

}  // namespace gpuwatch
