// The plainest full read and parse of a JSON lines file: what `import` of
// such a file is measured against (issue 25: "at most 2x realtime of the file
// read"). Reads the file a MiB at a time, parses each line with simdjson's
// DOM parser and touches every field (so nothing is parsed lazily), and
// prints lines, bytes and seconds.
//
//   jsonl_read FILE
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include <simdjson.h>

namespace {

// Fields of one parsed line, so that the compiler keeps the parse.
std::size_t count_fields(simdjson::dom::element e) {
  simdjson::dom::object o;
  if (e.get(o) != simdjson::SUCCESS) return 0;
  std::size_t n = 0;
  for (auto field : o) n += field.key.size() > 0 ? 1 : 0;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: jsonl_read FILE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "jsonl_read: cannot open %s\n", argv[1]);
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  simdjson::dom::parser parser;
  std::string buffer;
  std::string chunk(std::size_t{1} << 20, '\0');
  std::size_t lines = 0, fields = 0, bytes = 0;
  const auto parse_lines = [&](bool last) {
    std::size_t from = 0;
    for (std::size_t nl; (nl = buffer.find('\n', from)) != std::string::npos; from = nl + 1) {
      fields += count_fields(parser.parse(std::string_view(buffer).substr(from, nl - from)).value_unsafe());
      ++lines;
    }
    if (last && from < buffer.size()) {
      fields += count_fields(parser.parse(std::string_view(buffer).substr(from)).value_unsafe());
      ++lines;
      from = buffer.size();
    }
    buffer.erase(0, from);
  };
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    bytes += got;
    buffer.append(chunk.data(), got);
    parse_lines(false);
  }
  parse_lines(true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"schema_version\":1,\"lines\":%zu,\"fields\":%zu,\"bytes\":%zu,\"seconds\":%.3f}\n", lines, fields,
              bytes, seconds);
  return 0;
}
