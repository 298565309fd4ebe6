#include "store/run_lookup.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

RunInfo run(std::string id, std::string name, std::int64_t start_s, std::string host = "") {
  RunInfo r;
  r.id = std::move(id);
  r.name = std::move(name);
  r.start_wall_ns = start_s * 1'000'000'000;
  r.host = std::move(host);
  return r;
}

std::vector<StoreRuns> two_nodes() {
  return {{"a.db", {run("aaaa00000001", "train", 100, "node-a"), run("abcd00000002", "eval", 300, "node-a")}},
          {"b.db", {run("bbbb00000001", "train", 110, "node-b"), run("bbbb00000002", "solo", 200, "node-b")}}};
}

std::string error_of(const std::vector<StoreRuns>& stores, const std::string& ref) {
  try {
    (void)resolve_across(stores, ref);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ResolveAcross, IdLastNameAndPrefix) {
  const auto stores = two_nodes();
  EXPECT_EQ(resolve_across(stores, "bbbb00000002").store, 1u);
  const RunFound last = resolve_across(stores, "last");
  EXPECT_EQ(last.run.id, "abcd00000002");  // the latest of all stores, wherever it is
  EXPECT_EQ(last.store, 0u);
  EXPECT_EQ(resolve_across(stores, "solo").run.id, "bbbb00000002");
  EXPECT_EQ(resolve_across(stores, "abc").run.id, "abcd00000002");
}

TEST(ResolveAcross, ANameInSeveralStoresIsAnErrorListingEach) {
  const std::string e = error_of(two_nodes(), "train");
  EXPECT_NE(e.find("run name 'train' is in 2 stores"), std::string::npos) << e;
  EXPECT_NE(e.find("aaaa00000001 (train) on node-a in a.db"), std::string::npos) << e;
  EXPECT_NE(e.find("bbbb00000001 (train) on node-b in b.db"), std::string::npos) << e;
}

TEST(ResolveAcross, AmbiguousPrefixUnknownAndEmpty) {
  auto stores = two_nodes();
  const std::string prefix = error_of(stores, "bbbb");
  EXPECT_NE(prefix.find("ambiguous"), std::string::npos) << prefix;
  EXPECT_NE(prefix.find("bbbb00000001"), std::string::npos);
  EXPECT_NE(prefix.find("bbbb00000002"), std::string::npos);
  EXPECT_NE(error_of(stores, "nothing").find("no run matches 'nothing' in any of the 2 stores"), std::string::npos);
  std::vector<StoreRuns> empty{{"a.db", {}}, {"b.db", {}}};
  EXPECT_NE(error_of(empty, "last").find("no runs in any of the 2 stores"), std::string::npos);
}

TEST(ResolveAcross, TheSameIdInTwoStoresIsNamedAsSuch) {
  std::vector<StoreRuns> stores{{"a.db", {run("aaaa00000001", "x", 1)}}, {"b.db", {run("aaaa00000001", "x", 1)}}};
  EXPECT_NE(error_of(stores, "aaaa00000001").find("is in 2 stores"), std::string::npos);
}

using ExpandStorePaths = store_test::StoreTest;

TEST_F(ExpandStorePaths, FilesFoldersInNameOrderAndErrors) {
  namespace fs = std::filesystem;
  const fs::path folder = dir_ / "nodes";
  fs::create_directories(folder);
  for (const char* name : {"node-b.db", "node-a.db", "notes.txt"}) std::ofstream(folder / name) << "";
  fs::create_directories(folder / "sub.db");  // a folder, not a store
  const std::vector<std::string> given{folder.string(), (folder / "node-a.db").string()};
  const auto paths = expand_store_paths(given, "fallback.db");
  ASSERT_EQ(paths.size(), 2u);  // node-a.db named twice counts once
  EXPECT_EQ(paths[0].filename(), "node-a.db");
  EXPECT_EQ(paths[1].filename(), "node-b.db");
  EXPECT_EQ(expand_store_paths({}, "fallback.db"), std::vector<fs::path>{"fallback.db"});

  const auto error = [](const std::vector<std::string>& g) {
    try {
      (void)expand_store_paths(g, "x");
    } catch (const StoreError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  const fs::path bare = dir_ / "bare";
  fs::create_directories(bare);
  EXPECT_NE(error({bare.string()}).find("holds no run store (no *.db file)"), std::string::npos);
  EXPECT_NE(error({(dir_ / "missing.db").string()}).find("no such file or folder"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
