#include "analysis/job_gpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

using ::testing::ElementsAre;

GpuProcess process(int device, std::uint32_t pid, bool in_tree) {
  GpuProcess p;
  p.device_index = device;
  p.pid = pid;
  p.in_tree = in_tree;
  return p;
}

TEST(JobGpus, MessagesRoundTrip) {
  for (const JobGpus& job :
       {JobGpus{JobGpuSource::ProcessTree, {1, 3}}, JobGpus{JobGpuSource::VisibleDevices, {}, {"CUDA_VISIBLE_DEVICES"}},
        JobGpus{JobGpuSource::VisibleDevices, {2}, {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}},
        JobGpus{JobGpuSource::CommandNotSeen, {0, 1, 2}}}) {
    const auto back = parse_job_gpus_message(job_gpus_message(job));
    ASSERT_TRUE(back) << job_gpus_message(job);
    EXPECT_EQ(*back, job);
  }
  EXPECT_EQ(job_gpus_message({JobGpuSource::ProcessTree, {1, 3}}), "source=process_tree gpus=1,3");
}

// Runs recorded when CUDA_VISIBLE_DEVICES was the only variable read say no more.
TEST(JobGpus, OldVisibleDevicesMessagesMeanCudas) {
  const auto job = parse_job_gpus_message("source=cuda_visible_devices gpus=0,2");
  ASSERT_TRUE(job);
  EXPECT_EQ(*job, (JobGpus{JobGpuSource::VisibleDevices, {0, 2}, {"CUDA_VISIBLE_DEVICES"}}));
}

TEST(JobGpus, RefusesWhatItDidNotWrite) {
  for (const char* bad : {"", "source=unknown gpus=", "source=process_tree", "source=process_tree gpus=1,,2",
                          "source=process_tree gpus=-1", "source=process_tree gpus=1,1", "source=x gpus=1",
                          "source=process_tree gpus=99999999999", "gpus=1 source=process_tree",
                          "source=cuda_visible_devices gpus=1 variables=", "source=cuda_visible_devices gpus=1 variables=a b",
                          "source=cuda_visible_devices gpus=1 variables=X,,Y"}) {
    EXPECT_FALSE(parse_job_gpus_message(bad)) << bad;
  }
}

TEST(JobGpus, TheLatestValidEventHolds) {
  const std::vector<Event> events = {
      {{1, 1}, std::nullopt, "job_gpus", "source=command_not_seen gpus=0,1"},
      {{2, 2}, std::nullopt, "job_gpus", "source=process_tree gpus=1"},
      {{3, 3}, std::nullopt, "job_gpus", "garbage"},
      {{4, 4}, std::nullopt, "log", "source=process_tree gpus=0"},
  };
  const JobGpus job = job_gpus_from_events(events);
  EXPECT_EQ(job.source, JobGpuSource::ProcessTree);
  EXPECT_THAT(job.gpus, ElementsAre(1));
  EXPECT_FALSE(job_gpus_from_events({}).known());
}

TEST(JobGpuTracker, AllGpusUntilTheCommandShowsThenWhereItRan) {
  JobGpuTracker t({JobGpuSource::CommandNotSeen, {0, 1, 2}}, {0, 1, 2});
  // Another job's process on GPU 0 changes nothing.
  EXPECT_FALSE(t.observe(std::vector{process(0, 4242, false)}));
  EXPECT_EQ(t.current().source, JobGpuSource::CommandNotSeen);
  EXPECT_TRUE(t.observe(std::vector{process(0, 4242, false), process(2, 77, true)}));
  EXPECT_EQ(t.current(), (JobGpus{JobGpuSource::ProcessTree, {2}}));
  EXPECT_FALSE(t.observe(std::vector{process(2, 77, true)}));
  EXPECT_TRUE(t.observe(std::vector{process(1, 78, true)}));
  EXPECT_THAT(t.current().gpus, ElementsAre(1, 2));
  // A GPU the job left stays one it used.
  EXPECT_FALSE(t.observe(std::vector<GpuProcess>{}));
  EXPECT_THAT(t.current().gpus, ElementsAre(1, 2));
  // A process on a GPU that is not recorded is not a recorded GPU of the job.
  EXPECT_FALSE(t.observe(std::vector{process(5, 79, true)}));
}

TEST(JobGpuTracker, CudaVisibleDevicesIsFinal) {
  JobGpuTracker t({JobGpuSource::VisibleDevices, {1}}, {1});
  EXPECT_FALSE(t.observe(std::vector{process(1, 5, true)}));
  EXPECT_EQ(t.current(), (JobGpus{JobGpuSource::VisibleDevices, {1}}));
}

}  // namespace
}  // namespace gpuwatch
