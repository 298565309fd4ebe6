// gpuwatch-bench-cuda: the CUDA micro-benchmark worker that `gpuwatch bench`
// runs as a child process, so that gpuwatch itself never links CUDA.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "json_lines.h"
#include "runner.h"

int main(int argc, char** argv) {
  using namespace gpuwatch::bench_cuda;
  const std::vector<std::string> args(argv + 1, argv + argc);
  const ParsedArgs parsed = parse_args(args);
  switch (parsed.action) {
    case Action::help:
      std::fputs(usage_text().c_str(), stdout);
      return 0;
    case Action::list:
      for (const std::string& name : listed_test_names(parsed.options)) std::puts(name.c_str());
      return 0;
    case Action::usage_error:
      emit(error_line(parsed.error));
      std::fprintf(stderr, "gpuwatch-bench-cuda: %s (see --help)\n", parsed.error.c_str());
      return 2;
    case Action::run:
      break;
  }
  // CUDA's default order puts the fastest GPU first; NVML, nvidia-smi and
  // gpuwatch count in PCI bus order. The same order makes the indices agree.
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  try {
    return run_benchmarks(parsed.options);
  } catch (const std::exception& error) {
    emit(error_line(std::string("internal error: ") + error.what()));
    return 1;
  }
}
