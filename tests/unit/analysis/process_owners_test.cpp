// group_by_owner: one group per Slurm job (its steps together), container,
// pod, unit or user, with the sums top shows on an owner row.
#include "analysis/process_owners.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "backends/procfs/host.h"
#include "../core/attribution_examples.h"

namespace gpuwatch {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

ProcessUse use(std::uint32_t pid, int gpu, std::optional<std::uint64_t> memory, std::optional<double> gpu_percent,
               ProcessAttribution a = {}, std::string user = "alice") {
  ProcessUse p;
  p.pid = pid;
  p.gpu = gpu;
  p.gpu_memory_bytes = memory;
  p.gpu_percent = gpu_percent;
  p.cpu_percent = 50;
  p.user = std::move(user);
  p.attribution = std::move(a);
  return p;
}

ProcessAttribution slurm(std::string job, std::string step) {
  ProcessAttribution a;
  a.job = std::move(job);
  a.step = std::move(step);
  return a;
}

TEST(ProcessOwners, TheMostSpecificOwnerInTheOwnerColumnsOrder) {
  EXPECT_EQ(owner_of(test::slurm_array_task(), "alice"), (Owner{OwnerKind::SlurmJob, "1233_7"}));
  EXPECT_EQ(owner_of(slurm("1234", "batch"), "alice"), (Owner{OwnerKind::SlurmJob, "1234"}));
  // A pod's process is its container's, as the OWNER column says.
  EXPECT_EQ(owner_of(test::burstable_pod(), "root"), (Owner{OwnerKind::Container, "c0ffee112233"}));
  ProcessAttribution pod_only;
  pod_only.pod_uid = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
  EXPECT_EQ(owner_of(pod_only, "root"), (Owner{OwnerKind::Pod, "0a1b2c3d-4e5f-6789-abcd-ef0123456789"}));
  ProcessAttribution unit;
  unit.unit = "session-3.scope";
  EXPECT_EQ(owner_of(unit, "alice"), (Owner{OwnerKind::Unit, "session-3.scope"}));
  EXPECT_EQ(owner_of({}, "alice"), (Owner{OwnerKind::User, "alice"}));
  EXPECT_EQ(owner_of({}, ""), (Owner{OwnerKind::Unknown, ""}));
  for (const auto& [kind, text] : {std::pair{OwnerKind::SlurmJob, "slurm_job"}, {OwnerKind::Container, "container"},
                                   {OwnerKind::Pod, "pod"}, {OwnerKind::Unit, "unit"}, {OwnerKind::User, "user"},
                                   {OwnerKind::Unknown, "unknown"}}) {
    EXPECT_EQ(to_string(kind), text);
  }
}

TEST(ProcessOwners, AJobsStepsAndGpusAddUpInOneGroup) {
  const std::vector<ProcessUse> rows = {
      use(5101, 0, 4 * kGiB, 60, slurm("1234", "0")),
      use(5109, 1, 1 * kGiB, 25, slurm("1234", "batch"), "bob"),
      use(5200, 1, 2 * kGiB, 10),
  };
  const auto groups = group_by_owner(rows);
  ASSERT_EQ(groups.size(), 2u);
  const OwnerGroup& job = groups[0];
  EXPECT_EQ(job.owner, (Owner{OwnerKind::SlurmJob, "1234"}));
  EXPECT_EQ(job.pids, (std::vector<std::uint32_t>{5101, 5109}));
  EXPECT_EQ(job.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(job.users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(job.gpu_memory_bytes, 5 * kGiB);
  EXPECT_EQ(job.gpu_util_percent_sum, 85);
  EXPECT_EQ(job.cpu_percent_sum, 100);
  EXPECT_EQ(groups[1].owner, (Owner{OwnerKind::User, "alice"}));
  EXPECT_EQ(groups[1].pids, (std::vector<std::uint32_t>{5200}));
}

TEST(ProcessOwners, AProcessOnTwoGpusCountsOnceForProcessesAndCpu) {
  const std::vector<ProcessUse> rows = {use(7, 3, kGiB, 90), use(7, 1, 2 * kGiB, 80)};
  const auto groups = group_by_owner(rows);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].pids.size(), 1u);
  EXPECT_EQ(groups[0].gpus, (std::vector<int>{1, 3}));
  EXPECT_EQ(groups[0].gpu_memory_bytes, 3 * kGiB);
  EXPECT_EQ(groups[0].gpu_util_percent_sum, 170);  // two GPUs' shares
  EXPECT_EQ(groups[0].cpu_percent_sum, 50);
}

// "Not supported" is absent, never 0: a group whose driver hides every
// process's memory has no memory sum; one known value is the sum.
TEST(ProcessOwners, AbsentValuesStayAbsentUnlessOneIsKnown) {
  std::vector<ProcessUse> rows = {use(1, 0, std::nullopt, std::nullopt), use(2, 0, std::nullopt, std::nullopt)};
  rows[0].cpu_percent.reset();
  rows[1].cpu_percent.reset();
  auto groups = group_by_owner(rows);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_FALSE(groups[0].gpu_memory_bytes);
  EXPECT_FALSE(groups[0].gpu_util_percent_sum);
  EXPECT_FALSE(groups[0].cpu_percent_sum);
  rows[1].gpu_memory_bytes = kGiB;
  rows[1].gpu_percent = 0;
  groups = group_by_owner(rows);
  EXPECT_EQ(groups[0].gpu_memory_bytes, kGiB);
  EXPECT_EQ(groups[0].gpu_util_percent_sum, 0);
}

TEST(ProcessOwners, GroupsComeInTheOrderOfTheirFirstProcessAndGoneOnesAreUnknown) {
  ProcessAttribution docker;
  docker.container = "3f4e1b2c5d6a7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";
  const std::vector<ProcessUse> rows = {
      use(9, 0, kGiB, 0, {}, ""), use(5103, 0, kGiB, 0, docker, "root"), use(10, 1, kGiB, 0, {}, ""),
      use(5112, 1, kGiB, 0, docker, "root")};
  const auto groups = group_by_owner(rows);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].owner, (Owner{OwnerKind::Unknown, ""}));
  EXPECT_EQ(groups[0].pids, (std::vector<std::uint32_t>{9, 10}));
  EXPECT_TRUE(groups[0].users.empty());
  EXPECT_EQ(groups[1].owner, (Owner{OwnerKind::Container, "3f4e1b2c5d6a"}));
  EXPECT_EQ(groups[1].pids, (std::vector<std::uint32_t>{5103, 5112}));
  EXPECT_TRUE(group_by_owner({}).empty());
}

// The fixture /proc of every layout (tests/fixtures/procfs/README.md,
// "cgroup_owners"), read as top reads it, one GiB a process: a job's steps
// and ranks, a container's two processes, and two processes of no owner
// make one group each.
TEST(ProcessOwners, TheFixtureTreesProcessesGroupByJobContainerAndUser) {
  HostReader host(std::filesystem::path(GPUWATCH_FIXTURE_TREES) / "procfs/cgroup_owners", 100, 4096);
  std::vector<ProcessUse> rows;
  for (std::uint32_t pid = 5101; pid <= 5113; ++pid) {
    GpuProcess p;
    p.pid = pid;
    host.describe(p);
    // Only the owner-less processes' user matters: 5108's and 5113's Uid: is 999.
    rows.push_back(use(pid, pid % 2, kGiB, 1, p.attribution, pid == 5108 || pid == 5113 ? "u999" : "u1000"));
  }
  std::vector<std::pair<Owner, std::vector<std::uint32_t>>> got;
  for (const OwnerGroup& g : group_by_owner(rows)) got.emplace_back(g.owner, g.pids);
  using Pids = std::vector<std::uint32_t>;
  const std::vector<std::pair<Owner, Pids>> want = {
      {{OwnerKind::SlurmJob, "1234"}, Pids{5101, 5109}},           // v1: step 0 and the batch step
      {{OwnerKind::SlurmJob, "1233_7"}, Pids{5102, 5110}},         // v2: array task 1233_7, ranks 0 and 1
      {{OwnerKind::Container, "3f4e1b2c5d6a"}, Pids{5103, 5112}},  // Docker, systemd driver
      {{OwnerKind::Container, "9b2c4e6f8a0b"}, Pids{5104}},        // Guaranteed pod, containerd
      {{OwnerKind::Container, "c0ffee112233"}, Pids{5105}},        // Burstable pod, CRI-O
      {{OwnerKind::Container, "5e6f7a8b9c0d"}, Pids{5106}},        // BestEffort pod, cgroupfs
      {{OwnerKind::Unit, "app-blender-42.scope"}, Pids{5107}},
      {{OwnerKind::User, "u999"}, Pids{5108, 5113}},               // no cgroup file; the root cgroup
      {{OwnerKind::Container, "a7c3e5f1b2d4"}, Pids{5111}},        // Docker, cgroupfs driver, v1
  };
  EXPECT_EQ(got, want);
  const auto groups = group_by_owner(rows);
  EXPECT_EQ(groups[3].pod_uid, "11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(groups[3].qos, "Guaranteed");
  EXPECT_EQ(groups[3].runtime, "containerd");
  EXPECT_EQ(groups[4].qos, "Burstable");
  EXPECT_EQ(groups[5].qos, "BestEffort");
  EXPECT_EQ(groups[5].runtime, "");
  EXPECT_EQ(groups[8].runtime, "docker");
  EXPECT_EQ(groups[0].gpu_memory_bytes, 2 * kGiB);
  EXPECT_EQ(groups[2].gpus, (std::vector<int>{0, 1}));  // 5103 on GPU 1, 5112 on GPU 0
}

}  // namespace
}  // namespace gpuwatch
