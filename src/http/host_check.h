// Which Host headers a server answers: the one defence of a token-less
// server against DNS rebinding, where a page of another site, whose name was
// pointed at this machine, reads the answers with its own name in Host.
// Shared by `exporter` (always) and `serve` (without a token).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/listen_address.h"

namespace gpuwatch {

// Whether the host part of a --listen address or Host header is loopback:
// an IPv4 address in 127.0.0.0/8, ::1, or "localhost".
bool is_loopback_host(std::string_view host);

// The host of a Host header, its port and an IPv6 address's brackets taken
// off ("[::1]:9400" -> "::1", "Node-1.:9400" -> "node-1"): lower case, no
// final dot. Empty for a header that is not a host.
std::string host_header_name(std::string_view host_header);

class AllowedHosts {
 public:
  // What a server listening on `listen` answers to:
  // - loopback names and addresses, always;
  // - on a loopback address, nothing else;
  // - otherwise any IP address (a page's Host names its own origin, and an
  //   address is nobody's name to point elsewhere), the listen address's
  //   name, this machine's name `machine` (its first label too), and the
  //   `names` given (--allow-host: the names scrapers use).
  AllowedHosts(const ListenAddress& listen, std::string_view machine, const std::vector<std::string>& names);

  // A request without Host (HTTP/1.0, not a browser) is allowed.
  [[nodiscard]] bool allows(std::string_view host_header) const;
  // "127.0.0.1, localhost" or "...: any address, node-1": for a refusal's message.
  [[nodiscard]] std::string describe() const;

 private:
  bool loopback_only_ = true;
  std::vector<std::string> names_;  // lower case, no final dot
};

}  // namespace gpuwatch
