// `gpuwatch status` shows a junction temperature only for a GPU that has the
// sensor: the text line and the JSON window leave it out otherwise.
#include <string>

#include <gtest/gtest.h>

#include "render/run_status.h"

namespace gpuwatch {
namespace {

RunStatusReport two_gpus() {
  RunStatusReport s;
  s.run.id = "0123456789ab";
  s.verdict = "ok";
  GpuStatus amd{0, "AMD Radeon Pro W7900", {}, std::nullopt, true};
  amd.now.temp_celsius = 73;
  amd.now.temp_junction_celsius = 94;
  GpuWindow before;
  before.temp_celsius = 70;
  before.temp_junction_celsius = 90;
  amd.before = before;
  GpuStatus nvidia{1, "NVIDIA H100 80GB HBM3", {}, std::nullopt, true};
  nvidia.now.temp_celsius = 54;
  s.gpus = {amd, nvidia};
  return s;
}

TEST(RunStatusTemperatures, JunctionOnlyWhereTheGpuHasTheSensor) {
  const RunStatusReport s = two_gpus();
  const std::string text = render_run_status_text(s);
  EXPECT_NE(text.find("GPU 0  temp 73 °C (+3)  junction 94 °C (+4)"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU 1  temp 54 °C\n"), std::string::npos) << text;
  std::string json;
  for (char c : render_run_status_json(s)) {
    if (c != ' ' && c != '\n') json += c;
  }
  EXPECT_NE(json.find(R"("temp_celsius":73,"temp_junction_celsius":94})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("temp_celsius":54})"), std::string::npos) << json;
}

}  // namespace
}  // namespace gpuwatch
