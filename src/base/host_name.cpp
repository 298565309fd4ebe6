#include "base/host_name.h"

#include <unistd.h>

#include <array>

namespace gpuwatch {

std::string host_name() {
  // HOST_NAME_MAX is 64 on Linux; a name that fills the buffer may come
  // without its terminator, which the last byte, never written, supplies.
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return {};
  return name.data();
}

}  // namespace gpuwatch
