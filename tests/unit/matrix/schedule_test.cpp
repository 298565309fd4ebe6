#include "matrix/schedule.h"

#include <algorithm>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "matrix/grid.h"

namespace gpuwatch::matrix {
namespace {

DeviceInfo device(int index, const char* backend) {
  DeviceInfo d;
  d.index = index;
  d.backend = backend;
  return d;
}

TEST(MatrixSchedule, TakesTheLowestFreeGpus) {
  GpuPool pool({0, 1, 2, 3});
  EXPECT_EQ(pool.take(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(pool.take(1), std::vector<int>{2});
  EXPECT_FALSE(pool.take(2));  // only GPU 3 is free: nothing is taken
  EXPECT_EQ(pool.free_count(), 1u);
  pool.give_back(std::vector<int>{0, 1});
  EXPECT_EQ(pool.take(3), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(pool.take(0), std::vector<int>{});
}

// Cells start and finish in a random order; a GPU is never held twice.
TEST(MatrixSchedule, NoGpuIsSharedAtOnce) {
  std::mt19937 rng(13);
  GpuPool pool({0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<std::vector<int>> running;
  for (int step = 0; step < 2000; ++step) {
    if (!running.empty() && (rng() % 2 == 0 || running.size() == 4)) {
      const std::size_t i = rng() % running.size();
      pool.give_back(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (auto gpus = pool.take(2)) running.push_back(*gpus);
    std::multiset<int> held;
    for (const auto& r : running) held.insert(r.begin(), r.end());
    for (const int g : held) ASSERT_EQ(held.count(g), 1u) << "GPU " << g << " held twice";
    ASSERT_EQ(pool.free_count(), 8 - held.size());
  }
}

TEST(MatrixSchedule, GpusPerCell) {
  EXPECT_EQ(gpus_per_cell(1, std::nullopt, 4), 4u);  // serial: every GPU
  EXPECT_EQ(gpus_per_cell(2, std::nullopt, 4), 2u);  // parallel: an equal share
  EXPECT_EQ(gpus_per_cell(3, std::nullopt, 8), 2u);
  EXPECT_EQ(gpus_per_cell(2, 1, 4), 1u);
  EXPECT_EQ(gpus_per_cell(1, std::nullopt, 0), 0u);  // no GPU: cells run unconstrained
  EXPECT_THROW(gpus_per_cell(3, 2, 4), GridError);   // 6 > 4
  EXPECT_THROW(gpus_per_cell(5, std::nullopt, 4), GridError);
  EXPECT_THROW(gpus_per_cell(1, 1, 0), GridError);
  EXPECT_THROW(gpus_per_cell(0, std::nullopt, 4), GridError);
}

TEST(MatrixSchedule, VisibleDevicesPerVendor) {
  const std::vector<DeviceInfo> nvidia = {device(0, "nvml"), device(1, "nvml"), device(2, "nvml")};
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(visible_devices_env(std::vector<int>{0, 2}, nvidia),
            (Env{{"CUDA_VISIBLE_DEVICES", "0,2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
  // Mixed: each vendor counts its own GPUs from 0; a vendor the cell does not
  // get is hidden where the runtime can hide it.
  const std::vector<DeviceInfo> mixed = {device(0, "nvml"), device(1, "amdgpu"), device(2, "amdgpu"),
                                         device(3, "intel")};
  EXPECT_EQ(visible_devices_env(std::vector<int>{2}, mixed),
            (Env{{"CUDA_VISIBLE_DEVICES", "-1"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"HIP_VISIBLE_DEVICES", "1"}}));
  EXPECT_EQ(visible_devices_env(std::vector<int>{3, 0}, mixed),
            (Env{{"CUDA_VISIBLE_DEVICES", "0"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"HIP_VISIBLE_DEVICES", "-1"},
                 {"ZE_AFFINITY_MASK", "0"}}));
  EXPECT_TRUE(visible_devices_env(std::vector<int>{}, std::vector<DeviceInfo>{}).empty());
}

TEST(MatrixSchedule, Eta) {
  EXPECT_FALSE(eta_seconds({}, {}, 5, 1));  // nothing finished: no pace yet
  const std::vector<double> done = {10, 20};  // mean 15
  EXPECT_DOUBLE_EQ(*eta_seconds(done, {}, 4, 1), 60);
  EXPECT_DOUBLE_EQ(*eta_seconds(done, {}, 4, 2), 30);
  // A running cell 5 s in has 10 s left; one past the mean, none.
  EXPECT_DOUBLE_EQ(*eta_seconds(done, std::vector<double>{5, 40}, 0, 2), 5);
  EXPECT_DOUBLE_EQ(*eta_seconds(done, {}, 1, 4), 15);  // one cell left: one slot works
  EXPECT_DOUBLE_EQ(*eta_seconds(done, {}, 0, 1), 0);
}

}  // namespace
}  // namespace gpuwatch::matrix
