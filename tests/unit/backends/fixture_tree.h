// Helpers for the tests of the sysfs backends (amdgpu, Intel): the metrics a
// device says it supports, files written into a tree, and copies of fixture
// trees in a temporary directory that a test may change.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace gpuwatch::testing {

inline bool has_metric(const DeviceInfo& info, DeviceMetric m) {
  return std::find(info.supported.begin(), info.supported.end(), m) != info.supported.end();
}

inline std::vector<std::string> supported_names(const DeviceInfo& d) {
  std::vector<std::string> names;
  for (DeviceMetric m : d.supported) names.emplace_back(info(m).name);
  return names;
}

// `names` followed by the engine-class metrics, which every amdgpu and Intel
// card lists (from DRM fdinfo, whatever its sysfs files say).
inline std::vector<std::string> with_engine_classes(std::vector<std::string> names) {
  for (const char* m : {"engine_graphics_percent", "engine_compute_percent", "engine_copy_percent",
                        "engine_video_percent", "engine_video_enhance_percent"}) {
    names.emplace_back(m);
  }
  return names;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Paths for a backend under test: no NVML, no procfs unless one is given
// (the machine's own /proc would make process lists depend on what runs
// here), and no PCI id lists (names come from the built-in table, whatever
// this machine has installed).
inline SystemPaths fixture_paths(const std::filesystem::path& sysfs,
                                 const std::filesystem::path& procfs = "/nonexistent/proc") {
  SystemPaths paths;
  paths.sysfs_root = sysfs;
  paths.procfs_root = procfs;
  paths.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  paths.share_root = "/nonexistent/share";
  return paths;
}

// Copies of fixture trees (those the build unpacks from the archives into
// GPUWATCH_FIXTURE_TREES), symlinks kept as they are, removed at the end.
class ScratchTrees {
 public:
  explicit ScratchTrees(std::filesystem::path from) : from_(std::move(from)) {}
  ~ScratchTrees() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  ScratchTrees(const ScratchTrees&) = delete;
  ScratchTrees& operator=(const ScratchTrees&) = delete;

  // from/tree, copied to <scratch>/tree.
  std::filesystem::path copy_of(const std::string& tree) {
    namespace fs = std::filesystem;
    if (dir_.empty()) {
      std::string pattern = (fs::temp_directory_path() / "gpuwatch-sysfs-XXXXXX").string();
      EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
      dir_ = pattern;
    }
    const fs::path root = dir_ / tree;
    fs::create_directories(root.parent_path());
    fs::copy(from_ / tree, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    return root;
  }

 private:
  std::filesystem::path from_;
  std::filesystem::path dir_;
};

}  // namespace gpuwatch::testing
