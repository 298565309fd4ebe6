#include "http/host_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>

namespace gpuwatch {

namespace {

std::string lower_name(std::string_view name) {
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

bool is_ip_address(const std::string& text) {
  in_addr v4{};
  in6_addr v6{};
  return ::inet_pton(AF_INET, text.c_str(), &v4) == 1 || ::inet_pton(AF_INET6, text.c_str(), &v6) == 1;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  if (host == "localhost") return true;
  // Parsed as addresses, never matched as text: "127.evil.example" is a name
  // that anyone's DNS may point at 127.0.0.1 (rebinding).
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string host_header_name(std::string_view host_header) {
  std::string_view name = host_header;
  if (!name.empty() && name.front() == '[') {
    const std::size_t close = name.find(']');
    if (close == std::string_view::npos) return {};
    const std::string_view rest = name.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return {};
    name = name.substr(1, close - 1);
  } else if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
    if (name.find(':', colon + 1) != std::string_view::npos) return {};  // an IPv6 address needs brackets
    name = name.substr(0, colon);
  }
  return lower_name(name);
}

AllowedHosts::AllowedHosts(const ListenAddress& listen, std::string_view machine,
                           const std::vector<std::string>& names)
    : loopback_only_(is_loopback_host(listen.host)) {
  if (loopback_only_) return;
  const auto add = [this](std::string_view name) {
    std::string n = lower_name(name);
    if (!n.empty() && std::find(names_.begin(), names_.end(), n) == names_.end()) names_.push_back(std::move(n));
  };
  if (!is_ip_address(listen.host)) add(listen.host);
  add(machine);
  add(machine.substr(0, machine.find('.')));
  for (const std::string& name : names) add(name);
}

bool AllowedHosts::allows(std::string_view host_header) const {
  if (host_header.empty()) return true;
  const std::string name = host_header_name(host_header);
  if (name.empty()) return false;
  if (is_loopback_host(name)) return true;
  if (loopback_only_) return false;
  return is_ip_address(name) || std::find(names_.begin(), names_.end(), name) != names_.end();
}

std::string AllowedHosts::describe() const {
  std::string out = "localhost, 127.0.0.1, ::1";
  if (loopback_only_) return out;
  out += ", any IP address";
  for (const std::string& n : names_) out += ", " + n;
  return out;
}

}  // namespace gpuwatch
