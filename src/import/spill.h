// Where an import keeps what it has read until the whole file is known: a
// temporary file (deleted as it is created, so nothing is left behind
// whatever happens) or, for text already in memory, a string. The run's
// times and samples go here instead of into memory, so that importing a file
// of any size costs the same memory (docs/import.md, "Memory").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "base/unique_fd.h"

namespace gpuwatch {

class SpillFile {
 public:
  // In memory: for text that is in memory already (tests, the fuzzer).
  SpillFile() = default;
  // A file in `dir` that has no name. Throws ImportError when none can be
  // created there.
  explicit SpillFile(const std::filesystem::path& dir);
  SpillFile(SpillFile&&) = default;
  SpillFile& operator=(SpillFile&&) = default;

  void append(const void* data, std::size_t n);
  [[nodiscard]] std::uint64_t size() const { return size_; }
  // Reads up to n bytes at `offset`; returns how many there were. Throws
  // ImportError on a read error.
  std::size_t read_at(std::uint64_t offset, void* out, std::size_t n);

  // Sequential reads from an offset, a buffer at a time.
  class Reader {
   public:
    // Reads ahead buffer_bytes at a time: a MiB for a pass over the file,
    // less for reading a record here and there.
    explicit Reader(SpillFile& file, std::uint64_t from = 0, std::size_t buffer_bytes = std::size_t{1} << 20)
        : file_(file), offset_(from), buffer_bytes_(buffer_bytes) {}
    // False at the end (a record is never cut: the writer wrote it whole).
    bool read(void* out, std::size_t n);
    [[nodiscard]] std::uint64_t offset() const { return offset_; }

   private:
    SpillFile& file_;
    std::uint64_t offset_;
    std::size_t buffer_bytes_;
    std::string buffer_;
    std::size_t used_ = 0;  // bytes of buffer_ already handed out
  };

 private:
  void flush();
  [[noreturn]] void fail(const char* what, int err) const;

  UniqueFd fd_;  // a file; none: in memory
  std::filesystem::path dir_;
  std::string pending_;  // appended, not yet written (a file), or everything (in memory)
  std::uint64_t written_ = 0;  // bytes in the file
  std::uint64_t size_ = 0;
};

// Fixed-size values into and out of a spill, as the machine stores them
// (the file never leaves this process).
template <typename T>
void spill_put(SpillFile& file, const T& value) {
  file.append(&value, sizeof value);
}
template <typename T>
bool spill_get(SpillFile::Reader& in, T& value) {
  return in.read(&value, sizeof value);
}

}  // namespace gpuwatch
