// What `gpuwatch bench` reads from outside: the workers' stdout lines and,
// for `bench compare`, result files. Any bytes give a message, a file or a
// reason, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/bench_file.h"
#include "bench/worker_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  if (const auto m = gpuwatch::parse_worker_line(text, why)) {
    if (m->kind == gpuwatch::WorkerMessage::Kind::Result && m->result.test_name.empty()) __builtin_trap();
    if (m->result.gpu && *m->result.gpu < 0) __builtin_trap();
  } else if (why.empty()) {
    __builtin_trap();
  }
  try {
    const gpuwatch::BenchFile f = gpuwatch::parse_bench_file(text, "fuzz.json");
    for (const auto& t : f.tests) {
      if (t.test_name.empty()) __builtin_trap();
    }
  } catch (const gpuwatch::BenchFileError&) {
  }
  return 0;
}
