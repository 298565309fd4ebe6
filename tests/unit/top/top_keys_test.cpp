// Every key of `gpuwatch top` on a view, without a terminal: selection,
// sort, focus, help, interval steps, and the kill confirmation with its
// refusals.
#include <gtest/gtest.h>

#include <csignal>

#include "../render/top_view_util.h"
#include "top/top_keys.h"

namespace gpuwatch {
namespace {

using test::make_top_view;

constexpr std::uint32_t kAlice = 1000;

TEST(TopKeys, QQuits) {
  TopView view = make_top_view(1);
  TopKeys keys(kAlice, false);
  EXPECT_TRUE(keys.handle('q', view).quit);
}

TEST(TopKeys, DownAndUpMoveTheSelectionWithinTheTable) {
  TopView view = make_top_view(1, 10, 3);
  TopKeys keys(kAlice, false);
  keys.handle(kKeyDown, view);
  keys.handle('j', view);
  EXPECT_EQ(view.selected, 2u);
  keys.handle(kKeyDown, view);
  EXPECT_EQ(view.selected, 2u);  // the last row stays selected
  keys.handle(kKeyUp, view);
  keys.handle(kKeyUp, view);
  keys.handle(kKeyUp, view);
  EXPECT_EQ(view.selected, 0u);
}

TEST(TopKeys, PagesHomeAndEndMoveTheSelectionWithinTheTable) {
  TopView view = make_top_view(1, 10, 25);
  TopKeys keys(kAlice, false);
  keys.handle(kKeyPageDown, view);
  EXPECT_EQ(view.selected, kProcessPage);
  keys.handle(kKeyPageDown, view);
  keys.handle(kKeyPageDown, view);
  EXPECT_EQ(view.selected, 24u);  // stops at the last row
  keys.handle(kKeyPageUp, view);
  EXPECT_EQ(view.selected, 24u - kProcessPage);
  keys.handle(kKeyHome, view);
  EXPECT_EQ(view.selected, 0u);
  keys.handle(kKeyPageUp, view);
  EXPECT_EQ(view.selected, 0u);
  keys.handle(kKeyEnd, view);
  EXPECT_EQ(view.selected, 24u);
}

TEST(TopKeys, PagingAnEmptyTableSelectsNothing) {
  TopView view = make_top_view(1, 10, 0);
  TopKeys keys(kAlice, false);
  keys.handle(kKeyPageDown, view);
  keys.handle(kKeyEnd, view);
  keys.handle(kKeyPageUp, view);
  EXPECT_EQ(view.selected, 0u);
}

TEST(TopKeys, SCyclesTheSortAndResorts) {
  TopView view = make_top_view(1, 10, 3);
  TopKeys keys(kAlice, false);
  EXPECT_EQ(view.processes.front().pid, 1002u);  // most GPU memory
  keys.handle('s', view);
  EXPECT_EQ(view.sort, ProcessSort::GpuPercent);
  keys.handle('s', view);
  EXPECT_EQ(view.sort, ProcessSort::CpuPercent);
  EXPECT_EQ(view.processes.front().pid, 1000u);  // most CPU
  keys.handle('s', view);
  EXPECT_EQ(view.sort, ProcessSort::Pid);
  keys.handle('s', view);
  EXPECT_EQ(view.sort, ProcessSort::GpuMemory);
}

// o switches between a row per process and a row per owner; the selection
// follows the row it was on (a process's owner, an owner's first process),
// moves within the owner rows, and k refuses an owner row.
TEST(TopKeys, OGroupsByOwnerAndBack) {
  TopView view = make_top_view(1, 10, 4);  // 4, 3, 2, 1 GiB: pids 1003..1000
  view.processes[3].attribution.job = "77";  // pid 1000, the last row
  view.processes[3].attribution.step = "0";
  view.selected = 3;
  TopKeys keys(kAlice, false);
  keys.handle('o', view);
  EXPECT_TRUE(view.by_owner);
  EXPECT_EQ(view.message, "one row per owner: Slurm job, container, pod, unit or user");
  EXPECT_EQ(view.selected, 1u);  // alice's 9 GiB first, then job 77
  keys.handle(kKeyEnd, view);
  EXPECT_EQ(view.selected, 1u);  // two owner rows
  keys.handle(kKeyUp, view);
  EXPECT_EQ(view.selected, 0u);
  keys.handle('k', view);
  EXPECT_EQ(view.message, "k stops one process: o lists the processes again");
  keys.handle('y', view);  // nothing was asked
  EXPECT_EQ(view.message, "");
  keys.handle('o', view);
  EXPECT_FALSE(view.by_owner);
  EXPECT_EQ(view.selected, 0u);  // alice's first process
  EXPECT_EQ(view.message, "one row per process");
  EXPECT_TRUE(keys.handle('k', view).signal == std::nullopt);
  EXPECT_NE(view.message.find("send SIGTERM to pid 1003?"), std::string::npos) << view.message;
}

TEST(TopKeys, KillAsksThenSendsSigtermThenOffersSigkill) {
  TopView view = make_top_view(1, 10, 2);
  TopKeys keys(kAlice, false);
  const std::uint32_t pid = view.processes[0].pid;
  EXPECT_FALSE(keys.handle('k', view).signal);
  EXPECT_NE(view.message.find("send SIGTERM to pid " + std::to_string(pid)), std::string::npos) << view.message;
  const KeyOutcome yes = keys.handle('y', view);
  ASSERT_TRUE(yes.signal);
  EXPECT_EQ(yes.signal->pid, pid);
  EXPECT_EQ(yes.signal->signal, SIGTERM);
  keys.signal_sent(*yes.signal, 0, view);
  EXPECT_EQ(view.message, "sent SIGTERM to pid " + std::to_string(pid));
  keys.handle('k', view);
  EXPECT_NE(view.message.find("still runs after SIGTERM: send SIGKILL"), std::string::npos) << view.message;
  const KeyOutcome kill = keys.handle('y', view);
  ASSERT_TRUE(kill.signal);
  EXPECT_EQ(kill.signal->signal, SIGKILL);
}

TEST(TopKeys, TheRequestNamesTheProcessByItsStartTimeAndANewOneWithThePidIsNotOfferedSigkill) {
  TopView view = make_top_view(1, 10, 1);
  TopKeys keys(kAlice, false);
  keys.handle('k', view);
  const KeyOutcome yes = keys.handle('y', view);
  ASSERT_TRUE(yes.signal);
  EXPECT_EQ(yes.signal->start_ticks, 5000u);
  keys.signal_sent(*yes.signal, 0, view);
  view.processes[0].start_ticks = 9999;  // the pid now names a later process
  keys.handle('k', view);
  EXPECT_NE(view.message.find("send SIGTERM"), std::string::npos) << view.message;
  view.processes[0].start_ticks.reset();  // procfs could not say
  keys.handle('n', view);
  keys.handle('k', view);
  EXPECT_NE(view.message.find("nothing to stop"), std::string::npos) << view.message;
}

TEST(TopKeys, AnyOtherAnswerSendsNothing) {
  TopView view = make_top_view(1, 10, 1);
  TopKeys keys(kAlice, false);
  keys.handle('k', view);
  EXPECT_FALSE(keys.handle('n', view).signal);
  EXPECT_EQ(view.message, "not sent");
  EXPECT_FALSE(keys.handle('y', view).signal);  // the question was answered
}

TEST(TopKeys, OtherUsersProcessesAreRefusedUnlessRoot) {
  TopView view = make_top_view(1, 10, 1);
  view.processes[0].uid = 1001;
  view.processes[0].user = "bob";
  TopKeys alice(kAlice, false);
  alice.handle('k', view);
  EXPECT_NE(view.message.find("belongs to bob"), std::string::npos);
  EXPECT_FALSE(alice.handle('y', view).signal);
  TopKeys root(0, true);
  root.handle('k', view);
  EXPECT_TRUE(root.handle('y', view).signal);
}

TEST(TopKeys, AFailedSignalSaysWhy) {
  TopView view = make_top_view(1, 10, 1);
  TopKeys keys(kAlice, false);
  keys.signal_sent(SignalRequest{42, 7, SIGTERM}, ESRCH, view);
  EXPECT_EQ(view.message, "could not send SIGTERM to pid 42: No such process");
}

TEST(TopKeys, PlusAndMinusStepTheIntervalWithinItsBounds) {
  EXPECT_EQ(next_interval(1, +1), 2);
  EXPECT_EQ(next_interval(1, -1), 0.5);
  EXPECT_EQ(next_interval(0.1, -1), 0.1);
  EXPECT_EQ(next_interval(60, +1), 60);
  EXPECT_EQ(next_interval(0.3, +1), 0.5);  // an interval between steps moves to the next one
  TopView view = make_top_view(1);
  TopKeys keys(kAlice, false);
  const KeyOutcome minus = keys.handle('-', view);
  ASSERT_TRUE(minus.interval_s);
  EXPECT_EQ(*minus.interval_s, 0.5);
  view.interval_s = 0.1;
  EXPECT_FALSE(keys.handle('-', view).interval_s);  // already at the floor
}

TEST(TopKeys, DigitsFocusAGpuAndTheSameDigitOrEscapeReturns) {
  TopView view = make_top_view(4);
  TopKeys keys(kAlice, false);
  keys.handle('2', view);
  EXPECT_EQ(view.focus_gpu, 2);
  keys.handle('2', view);
  EXPECT_FALSE(view.focus_gpu);
  keys.handle('3', view);
  keys.handle(kKeyEscape, view);
  EXPECT_FALSE(view.focus_gpu);
  keys.handle('7', view);
  EXPECT_FALSE(view.focus_gpu);
  EXPECT_EQ(view.message, "there is no GPU 7 here");
}

TEST(TopKeys, TwoDigitsWithinASecondFocusGpusTenAndUp) {
  TopView view = make_top_view(16);
  TopKeys keys(kAlice, false);
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  keys.handle('1', view, t0);
  EXPECT_EQ(view.focus_gpu, 1);
  keys.handle('2', view, t0 + std::chrono::milliseconds(300));
  EXPECT_EQ(view.focus_gpu, 12);
  // Later than a second: a digit of its own.
  keys.handle('1', view, t0 + std::chrono::seconds(5));
  keys.handle('3', view, t0 + std::chrono::seconds(7));
  EXPECT_EQ(view.focus_gpu, 3);
  // A GPU that is not there: the second digit alone.
  keys.handle('2', view, t0 + std::chrono::seconds(9));
  keys.handle('5', view, t0 + std::chrono::milliseconds(9200));
  EXPECT_EQ(view.focus_gpu, 5);
  // Another key between breaks the pair.
  keys.handle('1', view, t0 + std::chrono::seconds(20));
  keys.handle('s', view, t0 + std::chrono::milliseconds(20100));
  keys.handle('4', view, t0 + std::chrono::milliseconds(20200));
  EXPECT_EQ(view.focus_gpu, 4);
}

TEST(TopKeys, PauseTogglesAndHelpClosesOnAnyKey) {
  TopView view = make_top_view(1);
  TopKeys keys(kAlice, false);
  keys.handle('p', view);
  EXPECT_TRUE(view.paused);
  keys.handle('p', view);
  EXPECT_FALSE(view.paused);
  keys.handle('h', view);
  EXPECT_TRUE(view.help);
  EXPECT_FALSE(keys.handle('q', view).quit);  // closes the help only
  EXPECT_FALSE(view.help);
}

}  // namespace
}  // namespace gpuwatch
