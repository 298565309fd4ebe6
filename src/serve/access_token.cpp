#include "serve/access_token.h"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include <fmt/format.h>

namespace gpuwatch {

std::string generate_access_token() {
  std::array<std::uint8_t, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::system_error(errno, std::generic_category(), "getrandom");
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (const std::uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

bool token_matches(std::string_view expected, std::string_view given) {
  // Every byte of `expected` is compared, whatever `given` holds.
  unsigned difference = expected.size() == given.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    difference |= static_cast<unsigned>(static_cast<unsigned char>(expected[i]) ^ static_cast<unsigned char>(g));
  }
  return difference == 0 && !expected.empty();
}

std::string_view presented_token(std::string_view authorization, std::string_view token_param) {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.substr(0, kBearer.size()) == kBearer) return authorization.substr(kBearer.size());
  return token_param;
}

bool is_token_text(std::string_view token) {
  return !token.empty() && token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-") ==
                               std::string_view::npos;
}

}  // namespace gpuwatch
