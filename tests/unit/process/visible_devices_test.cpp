#include "process/visible_devices.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

DeviceInfo gpu(int index, std::string name = "NVIDIA H100 80GB HBM3", std::string backend = "nvml") {
  DeviceInfo d;
  d.index = index;
  d.backend = std::move(backend);
  d.name = std::move(name);
  d.uuid = "GPU-fa4e0000-0000-4000-8000-00000000000" + std::to_string(index);
  d.pci_bus_id = "00000000:" + std::to_string(18 + 8 * index) + ":00.0";
  return d;
}

std::vector<DeviceInfo> four_h100() { return {gpu(0), gpu(1), gpu(2), gpu(3)}; }

TEST(CudaVisibleDevices, ParsesIndicesUuidsAndMigIds) {
  const VisibleList l = parse_cuda_visible_devices(" 2, 0 ");
  ASSERT_EQ(l.entries.size(), 2u);
  EXPECT_EQ(l.entries[0].index, 2u);
  EXPECT_EQ(l.entries[1].index, 0u);
  EXPECT_TRUE(l.stopped_at.empty());
  const VisibleList ids = parse_cuda_visible_devices("GPU-8932f937,MIG-GPU-8932f937/1/0,MIG-4f2a");
  ASSERT_EQ(ids.entries.size(), 3u);
  EXPECT_EQ(ids.entries[0].kind, VisibleEntry::Kind::Uuid);
  EXPECT_EQ(ids.entries[1].kind, VisibleEntry::Kind::Mig);
  EXPECT_EQ(ids.entries[2].kind, VisibleEntry::Kind::Mig);
}

TEST(CudaVisibleDevices, StopsAtTheFirstInvalidEntry) {
  // NVIDIA's example: 0,2,-1,1 shows devices 0 and 2.
  const VisibleList l = parse_cuda_visible_devices("0,2,-1,1");
  ASSERT_EQ(l.entries.size(), 2u);
  EXPECT_EQ(l.stopped_at, "-1");
  EXPECT_THAT(parse_cuda_visible_devices("1,,2").entries, ::testing::SizeIs(1));
  EXPECT_THAT(parse_cuda_visible_devices("0,GPU-fa4e").entries, ::testing::SizeIs(1));  // no mixing
  EXPECT_THAT(parse_cuda_visible_devices("gpu0").entries, IsEmpty());
  EXPECT_THAT(parse_cuda_visible_devices("99999999999999999999").entries, IsEmpty());
}

TEST(CudaVisibleDevices, EmptyOrMinusOneShowsNoGpu) {
  for (const char* none : {"", " ", "-1", "NoDevFiles"}) {
    const VisibleSelection s = resolve_cuda_visible_devices(none, "", four_h100());
    EXPECT_TRUE(s.resolved) << none;
    EXPECT_THAT(s.gpus, IsEmpty()) << none;
  }
}

TEST(CudaVisibleDevices, IndicesOfIdenticalGpusAreThePciOrder) {
  // NVML's (gpuwatch's) order is the PCI bus order; so is CUDA's on identical GPUs.
  const VisibleSelection s = resolve_cuda_visible_devices("1", "", four_h100());
  EXPECT_TRUE(s.resolved);
  EXPECT_THAT(s.gpus, ElementsAre(1));
  EXPECT_THAT(resolve_cuda_visible_devices("3,1", "FASTEST_FIRST", four_h100()).gpus, ElementsAre(3, 1));
}

TEST(CudaVisibleDevices, PciBusIdOrderFollowsTheBusNotTheListing) {
  std::vector<DeviceInfo> devices = {gpu(0, "A"), gpu(1, "B")};
  std::swap(devices[0].pci_bus_id, devices[1].pci_bus_id);  // GPU 1 sits on the lower bus
  EXPECT_THAT(resolve_cuda_visible_devices("0", "PCI_BUS_ID", devices).gpus, ElementsAre(1));
}

TEST(CudaVisibleDevices, MixedModelsUnderFastestFirstAreNotGuessed) {
  const std::vector<DeviceInfo> devices = {gpu(0, "NVIDIA A100-SXM4-80GB"), gpu(1, "NVIDIA H100 80GB HBM3")};
  const VisibleSelection s = resolve_cuda_visible_devices("1", "", devices);
  EXPECT_FALSE(s.resolved);
  ASSERT_THAT(s.notes, ::testing::SizeIs(1));
  EXPECT_THAT(s.notes[0], ::testing::HasSubstr("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
  // PCI_BUS_ID, or a UUID, settles it.
  EXPECT_THAT(resolve_cuda_visible_devices("1", "PCI_BUS_ID", devices).gpus, ElementsAre(1));
  EXPECT_THAT(resolve_cuda_visible_devices("GPU-fa4e0000-0000-4000-8000-000000000001", "", devices).gpus,
              ElementsAre(1));
}

TEST(CudaVisibleDevices, UuidsMatchByUniquePrefix) {
  EXPECT_THAT(resolve_cuda_visible_devices("GPU-FA4E0000-0000-4000-8000-000000000002", "", four_h100()).gpus,
              ElementsAre(2));
  // A prefix that several GPUs share ends the list, as in CUDA.
  const VisibleSelection s = resolve_cuda_visible_devices("GPU-fa4e0000-0000-4000-8000-000000000003,GPU-fa4e", "",
                                                          four_h100());
  EXPECT_THAT(s.gpus, ElementsAre(3));
  ASSERT_THAT(s.notes, ::testing::SizeIs(1));
  EXPECT_THAT(s.notes[0], ::testing::HasSubstr("'GPU-fa4e'"));
}

TEST(CudaVisibleDevices, OutOfRangeIndexHidesTheRest) {
  const VisibleSelection s = resolve_cuda_visible_devices("2,7,0", "", four_h100());
  EXPECT_TRUE(s.resolved);
  EXPECT_THAT(s.gpus, ElementsAre(2));
  ASSERT_THAT(s.notes, ::testing::SizeIs(1));
  EXPECT_THAT(s.notes[0], ::testing::HasSubstr("this machine has 4"));
}

TEST(CudaVisibleDevices, AGpuListedTwiceShowsNone) {
  const VisibleSelection s = resolve_cuda_visible_devices("1,1", "", four_h100());
  EXPECT_TRUE(s.resolved);
  EXPECT_THAT(s.gpus, IsEmpty());
}

TEST(CudaVisibleDevices, MigIdsNameTheirGpu) {
  const VisibleSelection s =
      resolve_cuda_visible_devices("MIG-GPU-fa4e0000-0000-4000-8000-000000000002/1/0,MIG-GPU-fa4e0000-0000-4000-8000-000000000002/2/0",
                                   "", four_h100());
  EXPECT_TRUE(s.resolved);
  EXPECT_THAT(s.gpus, ElementsAre(2));
  // The newer MIG-<uuid> names an instance: placed on the GPU that lists it,
  // and one no GPU lists is said, not guessed.
  std::vector<DeviceInfo> devices = four_h100();
  for (const char* uuid : {"MIG-4f2ad1b6-5f09-5a5b-8cb8-5a3a4cbaf3c3", "MIG-4f2a0000-0000-4000-8000-000000000001"}) {
    MigInstance instance;
    instance.uuid = uuid;
    devices[3].mig_instances.push_back(instance);
  }
  const VisibleSelection mig = resolve_cuda_visible_devices("MIG-4f2ad1b6", "", devices);
  EXPECT_TRUE(mig.resolved);
  EXPECT_THAT(mig.gpus, ElementsAre(3));
  EXPECT_FALSE(resolve_cuda_visible_devices("MIG-4f2ad1b6-5f09-5a5b-8cb8-5a3a4cbaf3c3", "", four_h100()).resolved);
  EXPECT_FALSE(resolve_cuda_visible_devices("MIG-4f2a", "", devices).resolved);  // both instances: ambiguous
}

TEST(CudaVisibleDevices, OnlyNvidiaGpusCount) {
  const std::vector<DeviceInfo> devices = {gpu(0, "AMD Instinct MI300X", "amdgpu"), gpu(1), gpu(2)};
  // CUDA's index 0 is the first NVIDIA GPU, gpuwatch's 1.
  EXPECT_THAT(resolve_cuda_visible_devices("0", "", devices).gpus, ElementsAre(1));
  EXPECT_THAT(resolve_cuda_visible_devices("2", "", devices).gpus, IsEmpty());
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

TEST(CudaVisibleDevices, ReadsAProcessEnvironment) {
  using namespace std::string_literals;
  const std::string environ = "HOME=/root\0CUDA_VISIBLE_DEVICES=2,3\0CUDA_VISIBLE_DEVICES_X=9\0"
                              "CUDA_VISIBLE_DEVICES=7\0EMPTY=\0"s;
  EXPECT_EQ(environ_value(environ, "CUDA_VISIBLE_DEVICES"), "2,3");  // the first, as getenv() finds it
  EXPECT_EQ(environ_value(environ, "EMPTY"), "");
  EXPECT_FALSE(environ_value(environ, "CUDA_DEVICE_ORDER"));
  EXPECT_FALSE(environ_value(environ, "CUDA"));
  EXPECT_EQ(environ_value("A=1"s, "A"), "1");  // no final NUL
  EXPECT_FALSE(environ_value(""s, "A"));
}

}  // namespace
}  // namespace gpuwatch

// ---- every vendor's variables together --------------------------------------

namespace gpuwatch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A machine of two NVIDIA, two AMD (listed out of bus order) and two Intel GPUs.
std::vector<DeviceInfo> mixed_machine() {
  const auto make = [](int index, const char* backend, const char* bus, const char* uuid) {
    DeviceInfo d;
    d.index = index;
    d.backend = backend;
    d.name = backend;
    d.pci_bus_id = bus;
    d.uuid = uuid;
    return d;
  };
  return {make(0, "nvml", "00000000:18:00.0", "GPU-aa"), make(1, "nvml", "00000000:20:00.0", "GPU-bb"),
          make(2, "amdgpu", "0000:c5:00.0", "c03e8b17f5a2d964"), make(3, "amdgpu", "0000:05:00.0", "5a9f3c71e24b08d6"),
          make(4, "intel", "0000:03:00.0", ""), make(5, "intel", "0000:83:00.0", "")};
}

GpuVisibility resolve(const std::string& environ) {
  return resolve_gpu_visibility(GpuVisibilityVariables::from_environ(environ), mixed_machine());
}

TEST(GpuVisibility, NoVariableConstrainsNothing) {
  const GpuVisibility v = resolve(std::string("HOME=/root"));
  EXPECT_FALSE(v.constrains_any());
  EXPECT_THAT(v.variables, IsEmpty());
}

TEST(GpuVisibility, CudaVariableAlsoChoosesAmdGpusThroughHip) {
  // HIP reads CUDA_VISIBLE_DEVICES: index 0 is the AMD GPU first on the bus (gpuwatch's 3).
  const GpuVisibility v = resolve(std::string("CUDA_VISIBLE_DEVICES=0"));
  EXPECT_THAT(v.gpus, ElementsAre(0, 3));
  EXPECT_THAT(v.constrained_backends, ElementsAre("nvml", "amdgpu"));
  EXPECT_THAT(v.variables, ElementsAre("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(v.constrains("intel"));
}

TEST(GpuVisibility, RocrFiltersFirstAndHipIndexesWhatIsLeft) {
  using namespace std::string_literals;
  // ROCr keeps bus indices 1 (gpuwatch 2); HIP's 0 is then that GPU.
  GpuVisibility v = resolve("ROCR_VISIBLE_DEVICES=1\0HIP_VISIBLE_DEVICES=0"s);
  EXPECT_THAT(v.gpus, ElementsAre(2));
  EXPECT_THAT(v.constrained_backends, ElementsAre("amdgpu"));
  EXPECT_THAT(v.variables, ElementsAre("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"));
  EXPECT_THAT(v.notes, IsEmpty());
  // HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES for AMD GPUs.
  v = resolve("CUDA_VISIBLE_DEVICES=1\0HIP_VISIBLE_DEVICES=0"s);
  EXPECT_THAT(v.gpus, ElementsAre(1, 3));
  // HIP's index past what ROCr left is ignored, and said.
  v = resolve("ROCR_VISIBLE_DEVICES=1\0HIP_VISIBLE_DEVICES=1"s);
  EXPECT_THAT(v.gpus, IsEmpty());
  ASSERT_EQ(v.notes.size(), 1U);
  EXPECT_NE(v.notes[0].find("HIP_VISIBLE_DEVICES: '1'"), std::string::npos) << v.notes[0];
}

TEST(GpuVisibility, RocrTakesUuidsByUniquePrefix) {
  EXPECT_THAT(resolve(std::string("ROCR_VISIBLE_DEVICES=GPU-c03e")).gpus, ElementsAre(2));
  EXPECT_THAT(resolve(std::string("ROCR_VISIBLE_DEVICES=GPU-5A9F3C71E24B08D6,GPU-c0")).gpus, ElementsAre(2, 3));
  // No such GPU: it and the rest are ignored.
  const GpuVisibility v = resolve(std::string("ROCR_VISIBLE_DEVICES=GPU-ffff,0"));
  EXPECT_THAT(v.gpus, IsEmpty());
  EXPECT_TRUE(v.constrains("amdgpu"));
  EXPECT_EQ(v.notes.size(), 1U);
}

TEST(GpuVisibility, ZeAffinityMaskPicksDevicesAndTheirTiles) {
  GpuVisibility v = resolve(std::string("ZE_AFFINITY_MASK=1.0,1.1"));
  EXPECT_THAT(v.gpus, ElementsAre(5));
  EXPECT_THAT(v.variables, ElementsAre("ZE_AFFINITY_MASK"));
  v = resolve(std::string("ZE_AFFINITY_MASK=7, 0"));  // 7 does not exist: ignored on its own
  EXPECT_THAT(v.gpus, ElementsAre(4));
  EXPECT_EQ(v.notes.size(), 1U);
  // Empty: Level Zero shows every device.
  EXPECT_FALSE(resolve(std::string("ZE_AFFINITY_MASK=")).constrains_any());
}

TEST(GpuVisibility, UnresolvableCudaIndicesLeaveEverythingToTheProcesses) {
  std::vector<DeviceInfo> devices = mixed_machine();
  devices[1].name = "another model";
  const GpuVisibilityVariables vars = GpuVisibilityVariables::from_environ(std::string("CUDA_VISIBLE_DEVICES=1"));
  const GpuVisibility v = resolve_gpu_visibility(vars, devices);
  EXPECT_FALSE(v.resolved);
  EXPECT_FALSE(v.notes.empty());
}

}  // namespace
}  // namespace gpuwatch
