#include "core/suggest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuwatch {
namespace {

const std::vector<std::string> kCommands{"devices", "sample", "record", "runs", "rm", "prune", "report",
                                         "export",  "compare", "import", "plot", "status", "bench"};

TEST(EditDistance, CountsASwapAsOneEdit) {
  EXPECT_EQ(edit_distance("record", "record"), 0u);
  EXPECT_EQ(edit_distance("recrod", "record"), 1u);
  EXPECT_EQ(edit_distance("nmae", "name"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(ClosestMatch, SuggestsCommandsAndFlags) {
  EXPECT_EQ(closest_match("recrod", kCommands), "record");
  EXPECT_EQ(closest_match("reprot", kCommands), "report");
  EXPECT_EQ(closest_match("statsu", kCommands), "status");
  EXPECT_EQ(closest_match("device", kCommands), "devices");
  const std::vector<std::string> flags{"--name", "--interval", "--gpus", "--format", "--store"};
  EXPECT_EQ(closest_match("--nmae", flags), "--name");
  EXPECT_EQ(closest_match("--intreval", flags), "--interval");
  EXPECT_EQ(closest_match("-name", flags), "--name");   // dashes are not letters
  EXPECT_EQ(closest_match("--form", flags), "--format");  // a start of one
}

TEST(ClosestMatch, SaysNothingWhenNothingIsClose) {
  EXPECT_EQ(closest_match("frobnicate", kCommands), std::nullopt);
  EXPECT_EQ(closest_match("xyz", kCommands), std::nullopt);
  EXPECT_EQ(closest_match("--", std::vector<std::string>{"--name"}), std::nullopt);
  EXPECT_EQ(closest_match("abc", std::vector<std::string>{}), std::nullopt);
}

}  // namespace
}  // namespace gpuwatch
