#include "http/listen_address.h"

#include <charconv>
#include <stdexcept>

namespace gpuwatch {

std::string ListenAddress::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

ListenAddress parse_listen_address(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return std::invalid_argument("'" + std::string(text) + "' is not ADDR:PORT (" + std::string(why) + ")");
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw bad("an IPv6 address goes in brackets: [::1]:9400");
  }
  if (host.empty()) throw bad("no address; 0.0.0.0 listens on every interface");
  unsigned port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    throw bad("the port is a number from 0 to 65535");
  }
  return {std::string(host), static_cast<std::uint16_t>(port)};
}

}  // namespace gpuwatch
