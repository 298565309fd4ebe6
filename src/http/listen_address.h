// --listen ADDR:PORT, as `exporter` (and later `serve`) take it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwatch {

struct ListenAddress {
  std::string host;        // an IPv4 or IPv6 address, or a name the resolver knows
  std::uint16_t port = 0;  // 0: any free port (tests)

  // "127.0.0.1:9400", "[::1]:9400"; IPv6 addresses in brackets.
  [[nodiscard]] std::string text() const;
};

// Throws std::invalid_argument with a message for people: no port, a port
// out of 0..65535, an empty address, IPv6 without brackets.
ListenAddress parse_listen_address(std::string_view text);

}  // namespace gpuwatch
