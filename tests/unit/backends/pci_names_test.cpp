// Naming AMD and Intel GPUs by PCI id (backends/pci_ids.h, pci_names.h):
// the parsers on lines of the real files, the order of the sources, and the
// backends' names over the fixture trees with the small lists in
// tests/fixtures/share (lines copied from libdrm's amdgpu.ids and from
// pci.ids 2026.08.22; see tests/fixtures/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "backends/amdgpu/amdgpu_backend.h"
#include "backends/intel/intel_backend.h"
#include "backends/pci_names.h"
#include "tests/unit/backends/fixture_tree.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using namespace pci_names;

const fs::path kShare = fs::path(GPUWATCH_FIXTURES) / "share";
const fs::path kTrees = fs::path(GPUWATCH_FIXTURE_TREES) / "sysfs";

// From libdrm's data/amdgpu.ids: the header, the version line, a Navi31
// device with three revisions, and a line written with spaces.
constexpr std::string_view kAmdgpuIds =
    "# List of AMDGPU IDs\n"
    "#\n"
    "# Syntax:\n"
    "# device_id,\trevision_id,\tproduct_name        <-- single tab after comma\n"
    "\n"
    "1.0.0\n"
    "7448,\t00,\tAMD Radeon Pro W7900\n"
    "744C,\tC8,\tAMD Radeon RX 7900 XTX\n"
    "744C,\tCC,\tAMD Radeon RX 7900 XT\n"
    "744C,\tCE,\tAMD Radeon RX 7900 GRE\n"
    "7481,   C7,     AMD Steam Machine\n";

// From pci.ids (version 2026.08.22): AMD's devices with a subsystem line,
// then ASPEED and Intel, and the class list at the end.
constexpr std::string_view kPciIds =
    "#\tList of PCI IDs\n"
    "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
    "\t7448  Navi 31 [Radeon Pro W7900]\n"
    "\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]\n"
    "\t\t1002 0e3b  RX 7900 XTX / RX 7900 GRE [XFX]\n"
    "\t7460  Navi 32 GL-XL [AMD Radeon PRO V710]\n"
    "1a03  ASPEED Technology, Inc.\n"
    "\t2000  ASPEED Graphics Family\n"
    "8086  Intel Corporation\n"
    "\t0bd0  Ponte Vecchio XL (2 Tile)\n"
    "\te212  Battlemage G21 [Arc Pro B50]\n"
    "\n"
    "C 03  Display controller\n"
    "\t00  VGA compatible controller\n";

TEST(PciIds, AmdgpuIdsByDeviceAndRevision) {
  EXPECT_EQ(find_in_amdgpu_ids(kAmdgpuIds, 0x7448, 0x00), "AMD Radeon Pro W7900");
  EXPECT_EQ(find_in_amdgpu_ids(kAmdgpuIds, 0x744c, 0xce), "AMD Radeon RX 7900 GRE");
  EXPECT_EQ(find_in_amdgpu_ids(kAmdgpuIds, 0x7481, 0xc7), "AMD Steam Machine");  // blanks, not tabs
  EXPECT_FALSE(find_in_amdgpu_ids(kAmdgpuIds, 0x744c, 0x00));  // no such revision: libdrm names none either
  EXPECT_FALSE(find_in_amdgpu_ids(kAmdgpuIds, 0x1234, 0x00));
  EXPECT_FALSE(find_in_amdgpu_ids("", 0x7448, 0x00));
  EXPECT_FALSE(find_in_amdgpu_ids("7448,\t00,\t\n", 0x7448, 0x00));      // no name
  EXPECT_FALSE(find_in_amdgpu_ids("7448,\t0,\tX\n", 0x7448, 0x00));      // one digit
  EXPECT_FALSE(find_in_amdgpu_ids("0x7448,\t00,\tX\n", 0x7448, 0x00));   // not the file's form
  EXPECT_EQ(find_in_amdgpu_ids("7448,00,A, B\r\n", 0x7448, 0x00), "A, B");  // a comma in the name
}

TEST(PciIds, PciIdsByVendorAndDevice) {
  EXPECT_EQ(find_in_pci_ids(kPciIds, kAmdVendor, 0x7448), "Navi 31 [Radeon Pro W7900]");
  EXPECT_EQ(find_in_pci_ids(kPciIds, kIntelVendor, 0xe212), "Battlemage G21 [Arc Pro B50]");
  EXPECT_EQ(find_in_pci_ids(kPciIds, 0x1a03, 0x2000), "ASPEED Graphics Family");
  // The subsystem id 0e3b is no device of AMD's; Intel's e212 none of ASPEED's.
  EXPECT_FALSE(find_in_pci_ids(kPciIds, kAmdVendor, 0x0e3b));
  EXPECT_FALSE(find_in_pci_ids(kPciIds, 0x1a03, 0xe212));
  EXPECT_FALSE(find_in_pci_ids(kPciIds, 0x10de, 0x2330));
  EXPECT_FALSE(find_in_pci_ids("", kAmdVendor, 0x7448));
}

TEST(PciIds, MarketingPartIsTheLastBracket) {
  EXPECT_EQ(marketing_part("Navi 31 [Radeon Pro W7900]"), "Radeon Pro W7900");
  EXPECT_EQ(marketing_part("Navi 32 GL-XL [AMD Radeon PRO V710]"), "AMD Radeon PRO V710");
  EXPECT_EQ(marketing_part("Ponte Vecchio XL (2 Tile)"), "Ponte Vecchio XL (2 Tile)");
  EXPECT_EQ(marketing_part("odd []"), "odd []");
  EXPECT_EQ(marketing_part("]"), "]");
  EXPECT_EQ(with_vendor("AMD", "Radeon Pro W7900"), "AMD Radeon Pro W7900");
  EXPECT_EQ(with_vendor("AMD", "AMD Radeon PRO V710"), "AMD Radeon PRO V710");
  EXPECT_EQ(with_vendor("Intel", "Intellicore X"), "Intel Intellicore X");
}

TEST(PciIds, BuiltinTableAndSysfsIds) {
  EXPECT_EQ(builtin_name(kAmdVendor, 0x7448), "Radeon Pro W7900");
  EXPECT_EQ(builtin_name(kAmdVendor, 0x74a1), "Instinct MI300X");
  EXPECT_EQ(builtin_name(kAmdVendor, 0x74a5), "Instinct MI325X");
  EXPECT_EQ(builtin_name(kAmdVendor, 0x740f), "Instinct MI210");
  EXPECT_EQ(builtin_name(kIntelVendor, 0x0bd5), "Data Center GPU Max 1550");
  EXPECT_EQ(builtin_name(kIntelVendor, 0xe212), "Arc Pro B50");
  EXPECT_EQ(builtin_name(kIntelVendor, 0xe20b), "Arc B580");
  EXPECT_FALSE(builtin_name(kAmdVendor, 0x744c));  // four consumer models share it
  EXPECT_FALSE(builtin_name(kIntelVendor, 0x7448));
  EXPECT_EQ(parse_sysfs_id("0x7448\n"), 0x7448);
  EXPECT_EQ(parse_sysfs_id("0xc8\n"), 0xc8);
  EXPECT_FALSE(parse_sysfs_id("7448\n"));
  EXPECT_FALSE(parse_sysfs_id("0x\n"));
  EXPECT_FALSE(parse_sysfs_id("0x12345\n"));
  EXPECT_FALSE(parse_sysfs_id("0x74g8\n"));
}

TEST(PciNames, SourcesInOrderThenTheId) {
  // amdgpu.ids by revision, else pci.ids, else the table, else the id.
  EXPECT_EQ(gpu_name(kShare, {kAmdVendor, 0x744c, 0xc8}, "AMD"), "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(gpu_name(kShare, {kAmdVendor, 0x744c, 0x01}, "AMD"),
            "AMD Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M");
  EXPECT_EQ(gpu_name(kShare, {kAmdVendor, 0x744c, std::nullopt}, "AMD"),
            "AMD Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M");
  EXPECT_EQ(gpu_name(kShare, {kIntelVendor, 0x46a6, std::nullopt}, "Intel"), "Intel Iris Xe Graphics");
  EXPECT_EQ(gpu_name(kShare, {kAmdVendor, 0x74a5, 0x00}, "AMD"), "AMD Instinct MI325X");  // in neither file
  EXPECT_EQ(gpu_name(kShare, {kAmdVendor, 0x1234, 0x00}, "AMD"), "AMD GPU 0x1234");
  EXPECT_EQ(gpu_name("/nonexistent", {kIntelVendor, 0x0bd5, std::nullopt}, "Intel"),
            "Intel Data Center GPU Max 1550");
  EXPECT_EQ(gpu_name("/nonexistent", {kIntelVendor, 0x0bd0, std::nullopt}, "Intel"), "Intel GPU 0x0bd0");
}

// The cards of the fixture trees, named through the lists in fixtures/share.
TEST(PciNames, BackendsNameTheirCardsFromTheLists) {
  std::string why_not;
  SystemPaths paths = testing::fixture_paths(kTrees / "w7900");
  paths.share_root = kShare;
  const auto w7900 = AmdgpuBackend::open(paths, why_not);
  ASSERT_NE(w7900, nullptr) << why_not;
  EXPECT_EQ(w7900->devices().at(0).name, "AMD Radeon Pro W7900");  // amdgpu.ids, revision 0x00
  paths.sysfs_root = kTrees / "bmc";
  const auto rx = AmdgpuBackend::open(paths, why_not);
  ASSERT_NE(rx, nullptr) << why_not;
  EXPECT_EQ(rx->devices().at(0).name, "AMD Radeon RX 7900 XTX");  // amdgpu.ids, revision 0xc8
  paths.sysfs_root = kTrees / "mi300x";
  const auto mi300x = AmdgpuBackend::open(paths, why_not);
  ASSERT_NE(mi300x, nullptr) << why_not;
  EXPECT_EQ(mi300x->devices().at(0).name, "AMD Instinct MI300X OAM");  // the board's own product_name wins
  paths.sysfs_root = kTrees / "i915_igpu";
  const auto igpu = IntelBackend::open(paths, why_not);
  ASSERT_NE(igpu, nullptr) << why_not;
  EXPECT_EQ(igpu->devices().at(0).name, "Intel Iris Xe Graphics");  // pci.ids
  paths.sysfs_root = kTrees / "arc_b50_xe";
  const auto b50 = IntelBackend::open(paths, why_not);
  ASSERT_NE(b50, nullptr) << why_not;
  EXPECT_EQ(b50->devices().at(0).name, "Intel Arc Pro B50");
}

}  // namespace
}  // namespace gpuwatch
