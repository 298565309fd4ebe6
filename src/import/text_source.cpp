#include "import/text_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "import/import.h"

namespace gpuwatch {

namespace {

constexpr std::size_t kReadChunkBytes = 1 << 20;

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "something else";
}

// Messages leave the path out: import_file puts it in front.
[[noreturn]] void not_regular(mode_t mode) {
  throw ImportError(
      fmt::format("{}, not a regular file: gpuwatch imports regular files only (save the data to a file first)",
                  file_kind(mode)));
}

[[noreturn]] void cannot_read(int err) { throw ImportError(fmt::format("cannot read it: {}", std::strerror(err))); }

}  // namespace

TextSource::TextSource(std::string_view text) : data_(text.data()), end_(text.size()) {}

TextSource::TextSource(std::string_view text, std::size_t chunk_bytes)
    : data_(buffer_.data()), unread_(text), chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)) {}

TextSource::TextSource(const std::filesystem::path& path) {
  // stat first: opening a FIFO would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) cannot_read(errno);
  if (!S_ISREG(st.st_mode)) not_regular(st.st_mode);
  // O_NONBLOCK: if the path became a FIFO since the stat, do not wait on it;
  // fstat below refuses it.
  fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd_.valid()) cannot_read(errno);
  if (::fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) not_regular(st.st_mode);
  buffer_.reserve(kReadChunkBytes);
  data_ = buffer_.data();
}

TextSource::~TextSource() = default;

bool TextSource::more() {
  if (!fd_.valid() && unread_.empty()) return false;
  // Move what is left to the front instead of growing the buffer.
  if (begin_ > 0) {
    buffer_.erase(0, begin_);
    consumed_before_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  const std::size_t want = std::max(chunk_bytes_ ? chunk_bytes_ : kReadChunkBytes, end_);
  if (!fd_.valid()) {
    const std::string_view piece = unread_.substr(0, want);
    buffer_.append(piece);
    unread_.remove_prefix(piece.size());
    end_ += piece.size();
    data_ = buffer_.data();
    return true;
  }
  buffer_.resize(end_ + want);
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = ::read(fd_.get(), buffer_.data() + end_ + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      buffer_.resize(end_ + got);
      cannot_read(err);
    }
    if (n == 0) {
      fd_.reset();
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  end_ += got;
  buffer_.resize(end_);
  data_ = buffer_.data();
  return got > 0;
}

bool TextSource::skip_space() {
  while (true) {
    const std::string_view w = window();
    std::size_t i = 0;
    while (i < w.size() && is_json_space(w[i])) ++i;
    consume(i);
    if (i < w.size()) return true;
    if (!more()) return false;
  }
}

bool TextSource::skip_bom_and_space() {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  ensure(kBom.size());
  if (window().substr(0, kBom.size()) == kBom) consume(kBom.size());
  return skip_space();
}

bool TextSource::ensure(std::size_t n) {
  while (end_ - begin_ < n) {
    if (!more()) return false;
  }
  return true;
}

}  // namespace gpuwatch
