// The `/` filter of top's process list and the one-GPU view's own
// processes (issue 26): what the table shows, what the kill key would act
// on, and how Esc undoes each narrowing.
#include <gtest/gtest.h>

#include "../render/top_view_util.h"
#include "render/top/process_table.h"
#include "render/top/top_screen.h"
#include "top/top_keys.h"

namespace gpuwatch {
namespace {

using test::make_top_view;

constexpr std::uint32_t kAlice = 1000;

void type(TopKeys& keys, TopView& view, std::string_view text) {
  for (char c : text) keys.handle(static_cast<unsigned char>(c), view);
}

std::vector<std::uint32_t> shown_pids(const TopView& view) {
  std::vector<std::uint32_t> out;
  for (const TopProcess& p : view.processes) out.push_back(p.pid);
  return out;
}

TEST(TopFilter, SlashNarrowsTheListAsItIsTypedAndEnterKeepsIt) {
  TopView view = make_top_view(2, 10, 4);  // pids 1000..1003, "python train.py --rank N"
  TopKeys keys(kAlice, false);
  keys.handle('/', view);
  EXPECT_TRUE(view.editing_filter);
  type(keys, view, "RANK 2");  // case ignored; k and q are text here, not kill and quit
  EXPECT_EQ(shown_pids(view), std::vector<std::uint32_t>{1002});
  EXPECT_NE(view.message.find("filter: RANK 2_"), std::string::npos) << view.message;
  keys.handle(kKeyBackspace, view);
  keys.handle('3', view);
  EXPECT_EQ(shown_pids(view), std::vector<std::uint32_t>{1003});
  keys.handle('\n', view);
  EXPECT_FALSE(view.editing_filter);
  EXPECT_EQ(view.filter, "RANK 3");
  const std::string header = plain_text(compose_top_screen(view, 100, 30)).substr(0, 100);
  EXPECT_NE(header.find("filter: RANK 3"), std::string::npos) << header;
  // The kill key acts on what is shown.
  keys.handle('k', view);
  EXPECT_NE(view.message.find("pid 1003"), std::string::npos) << view.message;
  keys.handle('n', view);
  keys.handle(kKeyEscape, view);  // Esc clears the filter
  EXPECT_EQ(view.processes.size(), 4u);
  EXPECT_TRUE(view.filter.empty());
}

TEST(TopFilter, PidsAndUsersMatchAndNothingMatchingSaysSo) {
  TopView view = make_top_view(1, 10, 3);
  TopKeys keys(kAlice, false);
  keys.handle('/', view);
  type(keys, view, "1001");
  EXPECT_EQ(shown_pids(view), std::vector<std::uint32_t>{1001});
  keys.handle(kKeyBackspace, view);
  keys.handle(kKeyBackspace, view);
  keys.handle(kKeyBackspace, view);
  keys.handle(kKeyBackspace, view);
  type(keys, view, "alice");
  EXPECT_EQ(view.processes.size(), 3u);
  type(keys, view, "x");
  EXPECT_TRUE(view.processes.empty());
  keys.handle('\n', view);
  const std::string text = plain_text(compose_top_screen(view, 100, 30));
  EXPECT_NE(text.find("no process on a watched GPU matches \"alicex\""), std::string::npos) << text;
  keys.handle(kKeyEscape, view);
  EXPECT_EQ(view.processes.size(), 3u);
}

TEST(TopFilter, OneGpuAloneListsOnlyItsProcesses) {
  TopView view = make_top_view(4, 10, 8);  // process p on GPU p % 4
  TopKeys keys(kAlice, false);
  keys.handle('2', view);
  ASSERT_EQ(view.focus_gpu, 2);
  ASSERT_EQ(view.processes.size(), 2u);
  for (const TopProcess& p : view.processes) EXPECT_EQ(p.gpu, 2);
  const std::string text = plain_text(compose_top_screen(view, 120, 40));
  EXPECT_EQ(text.find("python train.py --rank 1"), std::string::npos) << text;  // on GPU 1
  EXPECT_NE(text.find("python train.py --rank 2"), std::string::npos) << text;
  keys.handle(kKeyEscape, view);  // all GPUs, all processes again
  EXPECT_FALSE(view.focus_gpu);
  EXPECT_EQ(view.processes.size(), 8u);
}

TEST(TopFilter, EscWhileTypingClearsTheFilter) {
  TopView view = make_top_view(1, 10, 3);
  TopKeys keys(kAlice, false);
  keys.handle('/', view);
  type(keys, view, "zzz");
  EXPECT_TRUE(view.processes.empty());
  keys.handle(kKeyEscape, view);
  EXPECT_FALSE(view.editing_filter);
  EXPECT_TRUE(view.filter.empty());
  EXPECT_EQ(view.processes.size(), 3u);
}

}  // namespace
}  // namespace gpuwatch
