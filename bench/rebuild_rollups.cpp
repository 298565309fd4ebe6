// Builds a finished run's per-minute rollups again, with whatever this build
// adds to them (issue 25: the detector minutes), so that `report` can be
// measured on a store made before. Writes the store: run it on a copy.
//
//   rebuild_rollups --store FILE RUN [RUN...]
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "store/rollups.h"
#include "store/store.h"

int main(int argc, char** argv) {
  using namespace gpuwatch;
  if (argc < 4 || std::string_view(argv[1]) != "--store") {
    std::fprintf(stderr, "usage: rebuild_rollups --store FILE RUN [RUN...]\n");
    return 2;
  }
  const std::string path = argv[2];
  try {
    for (int i = 3; i < argc; ++i) {
      const RunInfo run = Store::open(path, true)->resolve(argv[i]);
      const auto start = std::chrono::steady_clock::now();
      if (!rebuild_rollups(path, run)) {
        std::fprintf(stderr, "rebuild_rollups: run %s is still recording or has a chunk that does not decode\n",
                     argv[i]);
        return 1;
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      std::printf("%s: rollups rebuilt in %.1f s\n", run.id.c_str(), took.count());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rebuild_rollups: %s\n", e.what());
    return 1;
  }
}
