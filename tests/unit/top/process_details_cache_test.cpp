// top reads procfs for its process table when the driver's list is new, not
// at every tick. Against the real /proc and this test's own process: CPU %
// needs two reads of it, so its presence tells whether procfs was read again.
#include "top/process_details_cache.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Timestamp at_ms(std::int64_t ms) { return Timestamp{ms * 1'000'000, 1'764'080'000'000'000'000 + ms * 1'000'000}; }

std::vector<GpuProcess> this_process_on_gpu0() {
  GpuProcess p;
  p.pid = static_cast<std::uint32_t>(::getpid());
  return {p};
}

TEST(ProcessDetailsCache, TheSameDriverListIsAnsweredWithoutReadingProcfsAgain) {
  ProcessDetailsCache cache("/proc");
  const auto on_gpus = this_process_on_gpu0();
  const auto& first = cache.details(on_gpus, at_ms(1000), at_ms(1000));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].gone);
  EXPECT_FALSE(first[0].cpu_percent.has_value());  // first sight: no share yet
  // Later ticks with the same list: the first answer, no second read.
  EXPECT_FALSE(cache.details(on_gpus, at_ms(1000), at_ms(1100))[0].cpu_percent.has_value());
  EXPECT_FALSE(cache.details(on_gpus, at_ms(1000), at_ms(1900))[0].cpu_percent.has_value());
  // A new list: read again, measured against the first read.
  EXPECT_TRUE(cache.details(on_gpus, at_ms(2000), at_ms(2000))[0].cpu_percent.has_value());
}

TEST(ProcessDetailsCache, AListWithoutATimeIsAlwaysReadAgain) {
  ProcessDetailsCache cache("/proc");
  const auto on_gpus = this_process_on_gpu0();
  (void)cache.details(on_gpus, std::nullopt, at_ms(1000));
  EXPECT_TRUE(cache.details(on_gpus, std::nullopt, at_ms(2000))[0].cpu_percent.has_value());
}

}  // namespace
}  // namespace gpuwatch
