// Golden screens of `gpuwatch top` at the terminal sizes issue 26 names: the
// whole text, compared with tests/fixtures/top/*.txt. A layout change shows
// here as a diff to read; GPUWATCH_UPDATE_GOLDEN=1 writes the new screens
// (then read the diff before committing them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include "render/top/screen.h"
#include "render/top/top_screen.h"
#include "top_view_util.h"

namespace gpuwatch {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_golden(const TopView& view, std::size_t width, std::size_t height, const std::string& name) {
  const Screen screen = compose_top_screen(view, width, height);
  ASSERT_EQ(screen.size(), height);
  const std::string text = plain_text(screen);
  const std::string path = std::string(GPUWATCH_FIXTURES) + "/top/" + name + ".txt";
  if (std::getenv("GPUWATCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << text;
    return;
  }
  EXPECT_EQ(text, read_file(path)) << "the screen now:\n" << text;
}

struct Golden {
  int gpus;
  std::size_t width;
  std::size_t height;
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.gpus << " GPUs at " << g.width << "x" << g.height; }

class TopGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(TopGolden, MatchesTheScreenKeptInGit) {
  const Golden g = GetParam();
  expect_golden(test::make_top_view(g.gpus), g.width, g.height,
                "screen_" + std::to_string(g.gpus) + "gpu_" + std::to_string(g.width) + "x" + std::to_string(g.height));
}

INSTANTIATE_TEST_SUITE_P(Sizes, TopGolden,
                         ::testing::Values(Golden{1, 80, 24}, Golden{1, 120, 40}, Golden{1, 200, 50},
                                           Golden{4, 120, 40}, Golden{4, 200, 50}));

}  // namespace
}  // namespace gpuwatch
