#include "render/error_json.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(ErrorJson, CarriesSchemaVersionKindMessageAndExitCode) {
  const std::string out = render_error_json("no_gpu", "no GPU found: \"libnvidia-ml.so.1\" not found", 9);
  EXPECT_NE(out.find("\"schema_version\": 1"), std::string::npos) << out;
  EXPECT_NE(out.find("\"kind\": \"no_gpu\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"message\": \"no GPU found: \\\"libnvidia-ml.so.1\\\" not found\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"exit_code\": 9"), std::string::npos) << out;
  EXPECT_EQ(out.back(), '\n');
}

}  // namespace
}  // namespace gpuwatch
