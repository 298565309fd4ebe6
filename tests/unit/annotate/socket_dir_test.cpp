// The annotation socket's private directory: its owner file, and the removal
// of the directories that dead recorders left behind, over a fake procfs.
#include "annotate/socket_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

class SocketDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "gpuwatch-sockdirs-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    base_ = top_ / "tmp";
    proc_ = top_ / "proc";
    fs::create_directories(base_);
    fs::create_directories(proc_);
    here_.host = "node7";
    here_.boot_id = "b007";
    here_.process = {100, 1000};
    process(100, 1000);
  }
  void TearDown() override {
    fs::permissions(base_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(top_);
  }
  // A live process of the fake procfs.
  void process(std::uint32_t pid, std::uint64_t start) {
    fs::create_directories(proc_ / std::to_string(pid));
    std::string line = std::to_string(pid) + " (gpuwatch) S 1 1";
    for (int field = 6; field <= 21; ++field) line += " 0";
    std::ofstream(proc_ / std::to_string(pid) / "stat") << line << " " << start << " 0 0\n";
  }
  // A directory as a recorder makes it, with its socket stand-in.
  fs::path recorder_dir(const std::string& host, const std::string& boot, std::uint32_t pid, std::uint64_t start) {
    SocketDirOwner owner;
    owner.host = host;
    owner.boot_id = boot;
    owner.process = {pid, start};
    const fs::path dir = create_socket_dir(base_, owner).path;  // its lock dropped: judged by pid
    std::ofstream(dir / kSocketFileName) << "";
    return dir;
  }
  std::size_t sweep() { return remove_stale_socket_dirs(base_, here_, proc_); }

  fs::path top_, base_, proc_;
  SocketDirOwner here_;
};

TEST(SocketDirOwnerText, RoundTripsAndRejectsAnythingElse) {
  SocketDirOwner o;
  o.host = "gpu-node-01.cluster";
  o.boot_id = "0f4e4bd4-7a2b-4bd4-9c1e-3b1f1c8c2d55";
  o.process = {4242, 123456789};
  const std::string text = format_socket_dir_owner(o);
  const auto back = parse_socket_dir_owner(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->host, o.host);
  EXPECT_EQ(back->boot_id, o.boot_id);
  EXPECT_EQ(back->process.pid, 4242u);
  EXPECT_EQ(back->process.start_ticks, 123456789u);

  o.boot_id.clear();
  o.process.start_ticks.reset();
  const auto unknown = parse_socket_dir_owner(format_socket_dir_owner(o));
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->boot_id, "");
  EXPECT_EQ(unknown->process.start_ticks, std::nullopt);

  const std::vector<std::string> bad_texts{std::string(), text.substr(0, text.size() - 1), text + "x\n",
                                 "gpuwatch socket directory\nhost a\nboot b\npid 0\nstart 1\n",
                                 "gpuwatch socket directory\nhost a b\nboot b\npid 1\nstart 1\n",
                                 "gpuwatch socket directory\nhost a\nboot b\npid 1\nstart 1x\n",
                                 "gpuwatch socket directory\nhost a\nboot b\npid 1\nstart 99999999999999999999\n",
                                 "gpuwatch socket directory\nboot b\nhost a\npid 1\nstart 1\n"};
  for (const std::string& bad : bad_texts) {
    EXPECT_EQ(parse_socket_dir_owner(bad), std::nullopt) << bad;
  }
}

TEST_F(SocketDirs, RemovesOnlyWhatItCanProveDead) {
  const fs::path mine = recorder_dir("node7", "b007", 100, 1000);        // this process
  process(200, 2000);
  const fs::path live = recorder_dir("node7", "b007", 200, 2000);        // another live recorder
  const fs::path killed = recorder_dir("node7", "b007", 300, 3000);      // pid gone
  process(400, 4001);
  const fs::path reused = recorder_dir("node7", "b007", 400, 4000);      // pid now another process
  const fs::path rebooted = recorder_dir("node7", "b006", 200, 2000);    // before a reboot
  const fs::path elsewhere = recorder_dir("node8", "b007", 300, 3000);   // another host's, on a shared /tmp
  const fs::path no_start = recorder_dir("node7", "b007", 500, 0);       // start unknown: the pid decides
  std::ofstream(no_start / kSocketDirOwnerFile) << "gpuwatch socket directory\nhost node7\nboot b007\npid 500\nstart -\n";
  const fs::path extra = recorder_dir("node7", "b007", 300, 3000);       // holds something not ours
  std::ofstream(extra / "notes.txt") << "keep me";
  const fs::path no_owner = base_ / "gpuwatch-abcdef";                  // an older gpuwatch's, or one being made
  fs::create_directory(no_owner);
  fs::permissions(no_owner, fs::perms::owner_all, fs::perm_options::replace);
  const fs::path garbled = recorder_dir("node7", "b007", 300, 3000);
  std::ofstream(garbled / kSocketDirOwnerFile) << "gpuwatch socket directory\nhost node7\n";
  const fs::path open_mode = recorder_dir("node7", "b007", 300, 3000);   // not private: not made by us
  fs::permissions(open_mode, fs::perms::group_read, fs::perm_options::add);
  const fs::path other_name = base_ / "gpuwatch-fuzz-123456";           // not a socket directory's name
  fs::create_directory(other_name);
  const fs::path target = top_ / "elsewhere";                            // a symlink to a dead-looking dir
  fs::create_directory(target);
  fs::permissions(target, fs::perms::owner_all, fs::perm_options::replace);
  std::ofstream(target / kSocketDirOwnerFile) << format_socket_dir_owner({"node7", "b007", {300, 3000}});
  fs::create_directory_symlink(target, base_ / "gpuwatch-link00");

  EXPECT_EQ(sweep(), 4u);
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_FALSE(fs::exists(reused));
  EXPECT_FALSE(fs::exists(rebooted));
  EXPECT_FALSE(fs::exists(no_start));
  for (const fs::path& kept : {mine, live, elsewhere, extra, no_owner, garbled, open_mode, other_name}) {
    EXPECT_TRUE(fs::exists(kept)) << kept;
  }
  EXPECT_TRUE(fs::exists(target / kSocketDirOwnerFile));
  EXPECT_TRUE(fs::exists(extra / kSocketDirOwnerFile));  // left whole, not half-emptied
  EXPECT_EQ(sweep(), 0u);
}

TEST_F(SocketDirs, CreatedPrivateWithItsOwnerAndRemovedWhole) {
  const fs::path dir = create_socket_dir(base_, here_).path;
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);
  std::ifstream in(dir / kSocketDirOwnerFile);
  std::ostringstream text;
  text << in.rdbuf();
  const auto owner = parse_socket_dir_owner(text.str());
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->process.pid, 100u);
  std::ofstream(dir / kSocketFileName) << "";
  remove_socket_dir(dir);
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_THROW(create_socket_dir(top_ / "missing", here_), std::runtime_error);
}

// Issue 22: a recorder in another PID namespace on this host names a pid
// that is dead (or another process) here; its lock proves it alive.
TEST_F(SocketDirs, ALockedOwnerFileIsALiveRecorderWhateverItsPid) {
  SocketDirOwner elsewhere = here_;
  elsewhere.process = {4000, 7};  // no such process in the fake procfs
  OwnedSocketDir held = create_socket_dir(base_, elsewhere);
  std::ofstream(held.path / kSocketFileName) << "";
  EXPECT_EQ(sweep(), 0u);
  EXPECT_TRUE(fs::exists(held.path / kSocketDirOwnerFile));
  held.owner_lock.reset();  // the recorder died: the kernel drops the lock
  EXPECT_EQ(sweep(), 1u);
  EXPECT_FALSE(fs::exists(held.path));
}

TEST_F(SocketDirs, AnUnreadableBaseIsNoError) {
  EXPECT_EQ(remove_stale_socket_dirs(top_ / "missing", here_, proc_), 0u);
}

}  // namespace
}  // namespace gpuwatch
