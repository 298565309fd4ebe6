// The neutral engine classes from each driver's engine names
// (backends/drm_fdinfo/engine_classes.h) and one card's use summed over its
// clients.
#include "backends/drm_fdinfo/engine_classes.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

using DM = DeviceMetric;

TEST(EngineClasses, EachDriversNamesMapToOneNeutralClass) {
  // amdgpu (amdgpu_fdinfo.c), i915 (i915_drm_client.c), xe (xe_drm_client.c).
  for (const char* name : {"gfx", "render", "rcs"}) EXPECT_EQ(engine_class_metric(name), DM::EngineGraphicsPercent);
  for (const char* name : {"compute", "ccs"}) EXPECT_EQ(engine_class_metric(name), DM::EngineComputePercent);
  for (const char* name : {"dma", "copy", "bcs"}) EXPECT_EQ(engine_class_metric(name), DM::EngineCopyPercent);
  for (const char* name : {"dec", "enc", "enc_1", "jpeg", "video", "vcs"}) {
    EXPECT_EQ(engine_class_metric(name), DM::EngineVideoPercent) << name;
  }
  for (const char* name : {"vpe", "video-enhance", "vecs"}) {
    EXPECT_EQ(engine_class_metric(name), DM::EngineVideoEnhancePercent) << name;
  }
  EXPECT_FALSE(engine_class_metric("other"));  // a name no table knows is left out
  EXPECT_FALSE(engine_class_metric("GFX"));
}

TEST(EngineClasses, AClassIsAsBusyAsItsBusiestEngine) {
  DeviceValues v;
  set_engine_class_values({{"gfx", 12.5}, {"dec", 30}, {"enc", 70}, {"jpeg", 5}, {"other", 99}}, v);
  EXPECT_EQ(v.get(DM::EngineGraphicsPercent), 12.5);
  EXPECT_EQ(v.get(DM::EngineVideoPercent), 70);  // not 105: one video block
  EXPECT_FALSE(v.has(DM::EngineComputePercent));  // no such engine seen: absent, not 0
  EXPECT_FALSE(v.has(DM::EngineCopyPercent));
}

DrmClient client(std::string driver, std::string pdev, std::vector<DrmEngineUse> use) {
  DrmClient c;
  c.info.driver = std::move(driver);
  c.info.pdev = std::move(pdev);
  c.engine_use = std::move(use);
  return c;
}

TEST(EngineClasses, ACardsClientsAddUpWithinTheEnginesWholeTime) {
  DrmScan scan;
  scan.clients = {client("xe", "0000:03:00.0", {{"rcs", 60}, {"ccs", 10}}),
                  client("xe", "0000:03:00.0", {{"rcs", 55}}),
                  client("xe", "0000:04:00.0", {{"ccs", 80}}),      // another card
                  client("i915", "0000:03:00.0", {{"render", 40}})};  // another driver at that slot
  const EngineUse use = card_engine_use(scan, "0000:03:00.0", "xe");
  EXPECT_EQ(use, (EngineUse{{"rcs", 100}, {"ccs", 10}}));  // 115 capped
}

}  // namespace
}  // namespace gpuwatch
