// A request's target, as any client may send it to `gpuwatch serve`: parsing
// must return or reject, never crash, and what it accepts must hold what the
// routes rely on (no "." or ".." segment, no control byte, bounded counts);
// the same bytes as the Host, Authorization and Accept-Encoding headers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/compression.h"
#include "http/host_check.h"
#include "serve/access_token.h"
#include "serve/request_target.h"

namespace {

bool has_control(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto target = gpuwatch::parse_request_target(text);
  // The token check sees the same bytes: it must not read past either.
  (void)gpuwatch::token_matches("0123456789abcdef", text);
  (void)gpuwatch::presented_token(text, text);
  // And the Host check, as a Host header.
  static const gpuwatch::AllowedHosts loopback({"127.0.0.1", 9410}, "node-1", {});
  static const gpuwatch::AllowedHosts anywhere({"0.0.0.0", 9400}, "node-1.example", {"scrape.example"});
  const bool on_loopback = loopback.allows(text);
  if (on_loopback && !text.empty() && !gpuwatch::is_loopback_host(gpuwatch::host_header_name(text))) __builtin_trap();
  (void)anywhere.allows(text);
  // And the Accept-Encoding check, as that header.
  (void)gpuwatch::accepts_gzip(text);
  if (!target) return 0;
  if (target->params.size() > gpuwatch::kMaxQueryParams) __builtin_trap();
  for (const auto& s : target->segments) {
    if (s.empty() || s == "." || s == ".." || has_control(s)) __builtin_trap();
  }
  for (const auto& [name, value] : target->params) {
    if (name.empty() || has_control(name) || has_control(value)) __builtin_trap();
  }
  return 0;
}
