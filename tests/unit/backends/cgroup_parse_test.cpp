// parse_cgroup, apply_slurm_environment and parse_status_nspid on the
// /proc/PID/cgroup texts of each layout gpuwatch attributes. The paths are
// shaped as the projects document them (see cgroup_parse.h for where); the
// ids are invented.
#include "backends/procfs/cgroup_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

using namespace std::string_literals;  // environ texts keep their NULs

const std::string kDockerId = "3f4e1b2c5d6a7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";
const std::string kContainerdId = "9b2c4e6f8a0b1c3d5e7f9a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d";
const std::string kPodUid = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
const std::string kPodUidSystemd = "0a1b2c3d_4e5f_6789_abcd_ef0123456789";

ProcessAttribution job(std::string id, std::string step) {
  ProcessAttribution a;
  a.job = std::move(id);
  a.step = std::move(step);
  return a;
}

ProcessAttribution container(const std::string& id, std::string runtime) {
  ProcessAttribution a;
  a.container = id;
  a.runtime = std::move(runtime);
  return a;
}

ProcessAttribution pod(std::string qos, const std::string& container_id, std::string runtime) {
  ProcessAttribution a = container(container_id, std::move(runtime));
  a.pod_uid = kPodUid;
  a.qos = std::move(qos);
  return a;
}

ProcessAttribution unit(std::string name) {
  ProcessAttribution a;
  a.unit = std::move(name);
  return a;
}

TEST(CgroupParse, SlurmV1StepUnderEveryController) {
  const std::string text =
      "12:memory:/slurm/uid_1000/job_1234/step_0/task_0\n"
      "11:devices:/slurm/uid_1000/job_1234/step_0\n"
      "4:cpuset:/slurm/uid_1000/job_1234/step_0\n"
      "3:freezer:/slurm/uid_1000/job_1234/step_0\n"
      "1:name=systemd:/system.slice/slurmd.service\n";
  EXPECT_EQ(parse_cgroup(text), job("1234", "0"));
}

TEST(CgroupParse, SlurmV1BatchStepOfANamedSlurmd) {
  EXPECT_EQ(parse_cgroup("4:memory:/slurm_node07/uid_0/job_88/step_batch/task_0\n"), job("88", "batch"));
  // A job folder with no step (the job's own cgroup) still names the job.
  EXPECT_EQ(parse_cgroup("4:memory:/slurm/uid_1000/job_5\n"), job("5", ""));
}

TEST(CgroupParse, SlurmV2Steps) {
  EXPECT_EQ(parse_cgroup("0::/system.slice/slurmstepd.scope/job_1234/step_0/user/task_0\n"), job("1234", "0"));
  EXPECT_EQ(parse_cgroup("0::/system.slice/slurmstepd.scope/job_1234/step_batch/user/task_0\n"),
            job("1234", "batch"));
  EXPECT_EQ(parse_cgroup("0::/system.slice/slurmstepd.scope/job_77/step_extern/user/task_special\n"),
            job("77", "extern"));
  // slurmstepd's own folder names no job: its unit is the scope.
  EXPECT_EQ(parse_cgroup("0::/system.slice/slurmstepd.scope/system\n"), unit("slurmstepd.scope"));
}

TEST(CgroupParse, SlurmPathSeenThroughACgroupNamespace) {
  // The Slurm folder is above the namespace's root: a step below a job still says Slurm.
  EXPECT_EQ(parse_cgroup("0::/job_1234/step_batch\n"), job("1234", "batch"));
  // A bare job_N with no step and no Slurm folder is anybody's name.
  EXPECT_EQ(parse_cgroup("0::/job_1234\n"), ProcessAttribution{});
}

TEST(CgroupParse, DockerBothDrivers) {
  EXPECT_EQ(parse_cgroup("0::/system.slice/docker-" + kDockerId + ".scope\n"), container(kDockerId, "docker"));
  EXPECT_EQ(parse_cgroup("0::/docker/" + kDockerId + "\n"), container(kDockerId, "docker"));
  EXPECT_EQ(parse_cgroup("9:memory:/docker/" + kDockerId + "\n1:name=systemd:/docker/" + kDockerId + "\n"),
            container(kDockerId, "docker"));
  EXPECT_EQ(short_container_id(kDockerId), "3f4e1b2c5d6a");
}

TEST(CgroupParse, ContainerdCrioAndPodmanScopes) {
  EXPECT_EQ(parse_cgroup("0::/system.slice/cri-containerd-" + kContainerdId + ".scope\n"),
            container(kContainerdId, "containerd"));
  EXPECT_EQ(parse_cgroup("0::/machine.slice/crio-" + kContainerdId + ".scope/container\n"),
            container(kContainerdId, "crio"));
  EXPECT_EQ(parse_cgroup("0::/machine.slice/libpod-" + kContainerdId + ".scope\n"),
            container(kContainerdId, "podman"));
  // conmon watches the container and is not in it: only its unit.
  EXPECT_EQ(parse_cgroup("0::/machine.slice/crio-conmon-" + kContainerdId + ".scope\n"),
            unit("crio-conmon-" + kContainerdId + ".scope"));
}

TEST(CgroupParse, KubernetesSystemdDriverEachQos) {
  const std::string scope = "/cri-containerd-" + kContainerdId + ".scope\n";
  EXPECT_EQ(parse_cgroup("0::/kubepods.slice/kubepods-pod" + kPodUidSystemd + ".slice" + scope),
            pod("Guaranteed", kContainerdId, "containerd"));
  EXPECT_EQ(parse_cgroup("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kPodUidSystemd +
                         ".slice" + scope),
            pod("Burstable", kContainerdId, "containerd"));
  EXPECT_EQ(parse_cgroup("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + kPodUidSystemd +
                         ".slice" + scope),
            pod("BestEffort", kContainerdId, "containerd"));
}

TEST(CgroupParse, KubernetesCgroupfsDriverEachQos) {
  EXPECT_EQ(parse_cgroup("0::/kubepods/pod" + kPodUid + "/" + kDockerId + "\n"), pod("Guaranteed", kDockerId, ""));
  EXPECT_EQ(parse_cgroup("0::/kubepods/burstable/pod" + kPodUid + "/" + kDockerId + "\n"),
            pod("Burstable", kDockerId, ""));
  EXPECT_EQ(parse_cgroup("7:cpu,cpuacct:/kubepods/besteffort/pod" + kPodUid + "/" + kDockerId + "\n"),
            pod("BestEffort", kDockerId, ""));
}

TEST(CgroupParse, KubernetesQosLevelWithoutAPodNamesNobody) {
  EXPECT_EQ(parse_cgroup("0::/kubepods.slice/kubepods-burstable.slice\n"), ProcessAttribution{});
}

TEST(CgroupParse, SystemdUnitsOtherwise) {
  EXPECT_EQ(parse_cgroup("0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope\n"),
            unit("foo.scope"));
  EXPECT_EQ(parse_cgroup("0::/system.slice/x.service\n"), unit("x.service"));
  EXPECT_EQ(parse_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n"), unit("session-3.scope"));
  EXPECT_EQ(parse_cgroup("0::/init.scope\n"), unit("init.scope"));
  EXPECT_EQ(parse_cgroup("0::/\n"), ProcessAttribution{});
}

TEST(CgroupParse, UnifiedLineFirstInAHybridHierarchy) {
  // v1 controllers still at the root; the unified line names the unit.
  EXPECT_EQ(parse_cgroup("5:memory:/\n1:name=systemd:/user.slice\n0::/system.slice/trainer.service\n"),
            unit("trainer.service"));
}

TEST(CgroupParse, MalformedLinesAreSkipped) {
  EXPECT_EQ(parse_cgroup(""), ProcessAttribution{});
  EXPECT_EQ(parse_cgroup("garbage\n:memory:/docker/" + kDockerId + "\nx:y:/system.slice/a.service\n"),
            ProcessAttribution{});
  EXPECT_EQ(parse_cgroup("0::relative/a.service\n3:memory\n0::/b.service"), unit("b.service"));
  // Not an id: too short, not hex, too long.
  EXPECT_EQ(parse_cgroup("0::/docker/abc\n"), ProcessAttribution{});
  EXPECT_EQ(parse_cgroup("0::/system.slice/docker-" + std::string(64, 'z') + ".scope\n").container, "");
  EXPECT_EQ(parse_cgroup("0::/system.slice/docker-" + std::string(65, 'a') + ".scope\n").container, "");
  EXPECT_EQ(parse_cgroup("0::/slurm/uid_0/job_12x/step_0\n"), ProcessAttribution{});
}

TEST(CgroupParse, SlurmArrayIdsFromTheEnvironment) {
  ProcessAttribution a = job("1240", "0");
  apply_slurm_environment("PATH=/usr/bin\0SLURM_JOB_ID=1240\0SLURM_ARRAY_JOB_ID=1233\0SLURM_ARRAY_TASK_ID=7\0"s, a);
  EXPECT_EQ(a.array_job, "1233");
  EXPECT_EQ(a.array_task, "7");
  EXPECT_EQ(slurm_job_text(a), "1233_7.0");
  EXPECT_EQ(attribution_text(a), "1233_7.0");
}

TEST(CgroupParse, EnvironmentOfAnotherJobAddsNothing) {
  ProcessAttribution a = job("1240", "0");
  apply_slurm_environment("SLURM_JOB_ID=999\0SLURM_ARRAY_JOB_ID=998\0SLURM_ARRAY_TASK_ID=1\0"s, a);
  EXPECT_EQ(a, job("1240", "0"));
}

TEST(CgroupParse, EnvironmentNamesTheJobWhereTheCgroupDoesNot) {
  ProcessAttribution a = unit("slurmd.service");
  apply_slurm_environment("SLURM_JOB_ID=51\0SLURM_STEP_ID=2\0"s, a);
  EXPECT_EQ(a, job("51", "2"));
  ProcessAttribution b;
  apply_slurm_environment("SLURM_JOB_ID=abc\0SLURM_ARRAY_TASK_ID=3\0"s, b);  // not a number; no array job
  EXPECT_EQ(b, ProcessAttribution{});
  ProcessAttribution c = job("9", "");
  apply_slurm_environment("SLURM_ARRAY_TASK_ID=3"s, c);  // half an array id
  EXPECT_EQ(c, job("9", ""));
}

TEST(CgroupParse, AttributionTextMostSpecificFirst) {
  EXPECT_EQ(attribution_text(job("1234", "batch")), "1234.batch");
  EXPECT_EQ(attribution_text(container(kDockerId, "docker")), "3f4e1b2c5d6a");
  ProcessAttribution p;
  p.pod_uid = kPodUid;
  p.qos = "Burstable";
  EXPECT_EQ(attribution_text(p), "pod:0a1b2c3d");
  EXPECT_EQ(attribution_text(unit("x.service")), "x.service");
  EXPECT_EQ(attribution_text(ProcessAttribution{}), "");
}

TEST(CgroupParse, NsPid) {
  EXPECT_EQ(parse_status_nspid("Name:\tpython3\nPid:\t4242\nNSpid:\t4242\t17\t1\nUid:\t0\n"),
            (std::vector<std::uint32_t>{4242, 17, 1}));
  EXPECT_EQ(parse_status_nspid("NSpid:\t4242\n"), (std::vector<std::uint32_t>{4242}));
  EXPECT_TRUE(parse_status_nspid("Name:\tx\nPid:\t1\n").empty());
  EXPECT_TRUE(parse_status_nspid("NSpid:\t12x\t1\n").empty());
}

}  // namespace
}  // namespace gpuwatch
