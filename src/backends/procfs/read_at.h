// Reading procfs files relative to a directory descriptor, shared by the
// procfs readers: they read many small files every tick, so there are no
// iostreams and no per-file allocations.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// Reads the whole file at dir_fd/path into buf and returns a view of it.
// procfs reports size 0, so it reads until EOF; buf only grows, so
// steady-state reads allocate nothing. nullopt when the file cannot be opened
// or read (errno tells why) or is too big to be a procfs file.
std::optional<std::string_view> read_at(int dir_fd, const char* path, std::string& buf);

// sysconf(name), or `fallback` where the system does not say.
long sysconf_or(int name, long fallback);

// Tick counters summed over many processes: a garbled file must not wrap
// the sum into a small number.
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

// "<pid>/<leaf>" in a fixed buffer: built for every process every tick.
class PidPath {
 public:
  PidPath(std::uint32_t pid, std::string_view leaf) {
    char* end = std::to_chars(text_.data(), text_.data() + 10, pid).ptr;
    *end++ = '/';
    leaf = leaf.substr(0, text_.size() - 12);
    end = std::copy(leaf.begin(), leaf.end(), end);
    *end = '\0';
  }
  [[nodiscard]] const char* c_str() const { return text_.data(); }

 private:
  std::array<char, 32> text_{};
};

}  // namespace gpuwatch
