#include "serve/request_target.h"

namespace gpuwatch {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool has_control_byte(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Splits on `separator`, keeping empty pieces.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace

std::optional<std::string_view> RequestTarget::param(std::string_view name) const {
  const auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex_digit(text[i + 1]);
      const int lo = hex_digit(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += plus_is_space && c == '+' ? ' ' : c;
    }
  }
  return out;
}

std::optional<RequestTarget> parse_request_target(std::string_view target) {
  if (target.empty() || target.front() != '/' || target.size() > kMaxTargetBytes) return std::nullopt;
  const std::size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  RequestTarget out;
  // "/" has no segments; "/a/b/" ends with an empty one, which is dropped.
  for (const std::string_view raw : split(path.substr(1), '/')) {
    if (raw.empty()) continue;
    auto segment = percent_decode(raw, false);
    if (!segment || segment->empty() || *segment == "." || *segment == ".." || has_control_byte(*segment)) {
      return std::nullopt;
    }
    out.segments.push_back(std::move(*segment));
  }
  if (query.empty()) return out;
  for (const std::string_view pair : split(query, '&')) {
    if (pair.empty()) continue;
    if (out.params.size() == kMaxQueryParams) return std::nullopt;
    const std::size_t equals = pair.find('=');
    auto name = percent_decode(pair.substr(0, equals), true);
    auto value = percent_decode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1), true);
    if (!name || !value || name->empty() || has_control_byte(*name) || has_control_byte(*value)) return std::nullopt;
    if (!out.params.emplace(std::move(*name), std::move(*value)).second) return std::nullopt;
  }
  return out;
}

}  // namespace gpuwatch
