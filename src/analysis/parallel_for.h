// Independent pieces of an analysis on a few threads: the report's GPUs, a
// comparison's metrics. Results must not depend on the order the pieces run
// in (each writes its own slot), so a run gives the same answer on one core
// or many.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuwatch {

// piece(i) for every i in [0, count), at most `workers` at once (the calling
// thread is one of them). The first exception a piece threw is rethrown
// once every thread has ended.
template <class Piece>
void parallel_for(std::size_t count, std::size_t workers, const Piece& piece) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        piece(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < std::min(workers, count); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace gpuwatch
