// The runs.command decoder on arbitrary bytes: it must return or reject,
// never crash. What it accepts must round-trip: encode(argv) decodes to the
// same argv, and encoding is then stable. The bytes are also split into an
// argv of their own (NUL-separated, any byte allowed, as in a real argv plus
// embedded control characters) that encode -> decode must give back exactly,
// since the store promises to return the argv that was recorded.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/command_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto argv = gpuwatch::decode_argv_json(text)) {
    // A decoded string never holds more bytes than its JSON spelling: every
    // escape expands to at most as many bytes as it took (\uXXXX -> <= 3,
    // a surrogate pair -> 4 from 12).
    std::size_t total = 0;
    for (const auto& arg : *argv) total += arg.size();
    if (total > size) __builtin_trap();
    const std::string json = gpuwatch::encode_argv_json(*argv);
    const auto again = gpuwatch::decode_argv_json(json);
    if (!again || *again != *argv) __builtin_trap();
    if (gpuwatch::encode_argv_json(*again) != json) __builtin_trap();
  }

  std::vector<std::string> argv;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nul = rest.find('\0');
    argv.emplace_back(rest.substr(0, nul));
    if (nul == std::string_view::npos) break;
    rest.remove_prefix(nul + 1);
  }
  const std::string json = gpuwatch::encode_argv_json(argv);
  const auto back = gpuwatch::decode_argv_json(json);
  if (!back || *back != argv) __builtin_trap();
  return 0;
}
