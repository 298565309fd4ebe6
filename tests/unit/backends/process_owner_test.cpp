// HostReader::describe over the fixture /proc trees procfs/cgroup_owners
// (one GPU process per layout: Slurm v1 and v2, Docker, Kubernetes
// Guaranteed, Burstable and BestEffort, a systemd unit) and
// procfs/pid_namespace (gpuwatch inside a container's PID namespace); see
// tests/fixtures/procfs/README.md for each tree's sources.
#include "backends/procfs/process_owner.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "backends/procfs/host.h"
#include "base/unique_fd.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
const fs::path kOwners = fs::path(GPUWATCH_FIXTURE_TREES) / "procfs/cgroup_owners";
const fs::path kPidNamespace = fs::path(GPUWATCH_FIXTURE_TREES) / "procfs/pid_namespace";

GpuProcess described(const fs::path& root, std::uint32_t pid) {
  HostReader host(root, 100, 4096);
  GpuProcess p;
  p.pid = pid;
  host.describe(p);
  return p;
}

TEST(ProcessOwner, SlurmV1StepFromTheMemoryController) {
  const GpuProcess p = described(kOwners, 5101);
  EXPECT_EQ(p.name, "python3");
  EXPECT_EQ(p.attribution.job, "1234");
  EXPECT_EQ(p.attribution.step, "0");
  EXPECT_EQ(p.attribution.array_job, "");
  EXPECT_EQ(p.attribution.unit, "");  // slurmd.service of name=systemd is not the owner
  EXPECT_EQ(attribution_text(p.attribution), "1234.0");
  EXPECT_FALSE(p.other_pid_namespace);
}

TEST(ProcessOwner, SlurmV2ArrayTaskWithItsEnvironment) {
  const ProcessAttribution a = described(kOwners, 5102).attribution;
  EXPECT_EQ(a.job, "1240");
  EXPECT_EQ(a.step, "0");
  EXPECT_EQ(a.array_job, "1233");
  EXPECT_EQ(a.array_task, "7");
  EXPECT_EQ(attribution_text(a), "1233_7.0");
}

TEST(ProcessOwner, DockerContainer) {
  const ProcessAttribution a = described(kOwners, 5103).attribution;
  EXPECT_EQ(a.container, "3f4e1b2c5d6a7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f");
  EXPECT_EQ(a.runtime, "docker");
  EXPECT_EQ(attribution_text(a), "3f4e1b2c5d6a");
  EXPECT_EQ(a.pod_uid, "");
}

TEST(ProcessOwner, KubernetesPodsOfEachQosClass) {
  const ProcessAttribution guaranteed = described(kOwners, 5104).attribution;
  EXPECT_EQ(guaranteed.pod_uid, "11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(guaranteed.qos, "Guaranteed");
  EXPECT_EQ(guaranteed.runtime, "containerd");
  EXPECT_EQ(short_container_id(guaranteed.container), "9b2c4e6f8a0b");
  const ProcessAttribution burstable = described(kOwners, 5105).attribution;
  EXPECT_EQ(burstable.pod_uid, "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
  EXPECT_EQ(burstable.qos, "Burstable");
  EXPECT_EQ(burstable.runtime, "crio");
  EXPECT_EQ(short_container_id(burstable.container), "c0ffee112233");
  const ProcessAttribution best_effort = described(kOwners, 5106).attribution;
  EXPECT_EQ(best_effort.pod_uid, "fedcba98-7654-3210-fedc-ba9876543210");
  EXPECT_EQ(best_effort.qos, "BestEffort");
  EXPECT_EQ(best_effort.runtime, "");  // cgroupfs names the id only
  EXPECT_EQ(short_container_id(best_effort.container), "5e6f7a8b9c0d");
}

TEST(ProcessOwner, SystemdUnitWithAnUnreadableEnvironment) {
  const GpuProcess p = described(kOwners, 5107);
  EXPECT_EQ(p.attribution.unit, "app-blender-42.scope");
  EXPECT_EQ(p.attribution.job, "");
  EXPECT_EQ(p.name, "blender");
}

TEST(ProcessOwner, NoCgroupFileNoOwner) {
  EXPECT_TRUE(described(kOwners, 5108).attribution.empty());
}

// The tree's second processes of one owner (tests/fixtures/procfs/README.md).
TEST(ProcessOwner, SecondProcessesOfAJobAndAContainer) {
  const ProcessAttribution batch = described(kOwners, 5109).attribution;  // v1, step_batch of job 1234
  EXPECT_EQ(attribution_text(batch), "1234.batch");
  EXPECT_EQ(slurm_job_id_text(batch), "1234");
  const ProcessAttribution rank1 = described(kOwners, 5110).attribution;  // v2, task_1 of array task 1233_7
  EXPECT_EQ(attribution_text(rank1), "1233_7.0");
  EXPECT_EQ(slurm_job_id_text(rank1), "1233_7");
  EXPECT_EQ(described(kOwners, 5112).attribution, described(kOwners, 5103).attribution);
}

TEST(ProcessOwner, DockerWithTheCgroupfsDriverOnCgroupV1) {
  const ProcessAttribution a = described(kOwners, 5111).attribution;
  EXPECT_EQ(a.container, "a7c3e5f1b2d4968071e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4");
  EXPECT_EQ(a.runtime, "docker");
  EXPECT_EQ(a.pod_uid, "");
  EXPECT_EQ(a.unit, "");
}

TEST(ProcessOwner, TheRootCgroupNamesNoOwner) {
  EXPECT_TRUE(described(kOwners, 5113).attribution.empty());
}

TEST(ProcessOwner, AMissingPidOnTheHostIsGone) {
  const GpuProcess p = described(kOwners, 5199);
  EXPECT_EQ(p.name, "");
  EXPECT_TRUE(p.attribution.empty());
  EXPECT_FALSE(p.other_pid_namespace);
}

TEST(ProcessOwner, AMissingPidInsideAContainerIsOfAnotherNamespace) {
  const GpuProcess p = described(kPidNamespace, 73421);
  EXPECT_EQ(p.name, "");
  EXPECT_TRUE(p.other_pid_namespace);
  // A process that is there is described as on a host.
  const GpuProcess self = described(kPidNamespace, 1);
  EXPECT_EQ(self.name, "gpuwatch");
  EXPECT_FALSE(self.other_pid_namespace);
}

TEST(ProcessOwner, ChildNamespaceNeedsASingleNsPid) {
  std::string buf;
  const UniqueFd owners(::open(kOwners.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_FALSE(procfs_is_child_pid_namespace(owners.get(), buf));  // the initial namespace's inode
  const UniqueFd inside(::open(kPidNamespace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_TRUE(procfs_is_child_pid_namespace(inside.get(), buf));
  EXPECT_FALSE(procfs_is_child_pid_namespace(-1, buf));
}

}  // namespace
}  // namespace gpuwatch
