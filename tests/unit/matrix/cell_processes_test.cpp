// What a matrix cell leaves behind (matrix/cell_processes.h): which
// processes are provably the cell's, and ending them, on a stand-in for a
// cell run here (a session of its own, as a cell's recorder has).
#include "matrix/cell_processes.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gpuwatch::matrix {
namespace {

// A /proc/PID/stat line with the fields the parser reads.
std::string stat_line(int pid, const char* comm, char state, int session) {
  return fmt::format("{} ({}) {} 1 {} {} 0 -1 4194560 0 0 0 0 11 22 0 0 20 0 1 0 333 4096 7 0 0\n", pid, comm, state,
                     pid, session);
}

TEST(CellProcesses, MembershipIsTheSessionOrTheMarker) {
  const CellTag tag{4242, "77.0.123"};
  using namespace std::string_literals;
  const std::string marked = "HOME=/root\0GPUWATCH_MATRIX_CELL_ID=77.0.123\0PATH=/bin\0"s;
  EXPECT_EQ(cell_membership(stat_line(4250, "sleep", 'S', 4242), "", tag), "session");
  EXPECT_EQ(cell_membership(stat_line(4251, "sleep", 'S', 4251), marked, tag), "environment");
  EXPECT_EQ(cell_membership(stat_line(4252, "sleep", 'S', 4251), "GPUWATCH_MATRIX_CELL_ID=77.0.1234\0"s, tag),
            std::nullopt);  // another start of the cell
  EXPECT_EQ(cell_membership(stat_line(4253, "sleep", 'S', 4251), "XGPUWATCH_MATRIX_CELL_ID=77.0.123"s, tag),
            std::nullopt);
  EXPECT_EQ(cell_membership(stat_line(4254, "sleep", 'Z', 4242), "", tag), std::nullopt);  // gone already
  EXPECT_EQ(cell_membership("garbage", marked, tag), std::nullopt);
  EXPECT_EQ(cell_membership(stat_line(4255, "k", 'S', 0), "", CellTag{0, ""}), std::nullopt);  // an empty tag
}

bool alive(pid_t pid) {
  const auto text = [&] {
    FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r");
    if (f == nullptr) return std::string();
    char buf[512] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    return std::string(buf, n);
  }();
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z' && text[close + 2] != 'X';
}

// A cell's leader that starts a background sleep (stays in its session), a
// setsid sleep (leaves it, keeps the marker) and a shell that ignores
// SIGTERM with its sleep (needs SIGKILL), then exits.
TEST(CellProcesses, EndsTheSessionAndWhatLeftItWithTermThenKill) {
  const std::string marker = fmt::format("test.{}", getpid());
  const std::string env_entry = fmt::format("{}={}", kCellIdVariable, marker);
  const pid_t leader = fork();
  ASSERT_GE(leader, 0);
  if (leader == 0) {
    setsid();
    char* const argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"),
                          const_cast<char*>("sleep 1000 & setsid sleep 1000 & sh -c 'trap \"\" TERM; sleep 1000; true' & "
                                            "sleep 0.5"),
                          nullptr};
    char* const envp[] = {const_cast<char*>(env_entry.c_str()), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
    execve("/bin/sh", argv, envp);
    _exit(127);
  }
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(leader), &info, WEXITED | WNOWAIT), 0);
  const CellTag tag{static_cast<std::uint32_t>(leader), marker};
  const auto found = find_cell_processes("/proc", tag, static_cast<std::uint32_t>(leader));
  ASSERT_EQ(found.size(), 4u);  // sleep, setsid's sleep, sh and its sleep (SIGTERM ignored, inherited)
  const std::vector<LeftoverProcess> ended =
      end_cell_processes("/proc", tag, static_cast<std::uint32_t>(leader), std::chrono::milliseconds(300));
  ASSERT_EQ(waitpid(leader, nullptr, 0), leader);
  std::vector<std::string> how;
  for (const LeftoverProcess& p : ended) {
    how.push_back(fmt::format("{} {} {}", p.name, p.found_by, p.ended_by));
    EXPECT_FALSE(alive(static_cast<pid_t>(p.pid))) << p.pid;
  }
  std::sort(how.begin(), how.end());
  EXPECT_EQ(how, (std::vector<std::string>{"sh session SIGKILL", "sleep environment SIGTERM", "sleep session SIGKILL",
                                           "sleep session SIGTERM"}))
      << fmt::format("{}", fmt::join(how, "; "));
  EXPECT_TRUE(find_cell_processes("/proc", tag, 0).empty());
}

}  // namespace
}  // namespace gpuwatch::matrix
