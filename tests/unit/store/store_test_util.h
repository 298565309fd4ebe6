// Shared by the store tests: a temporary store location, a raw SQLite
// connection to look at the file as another tool would, and sample makers.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "store/store.h"

namespace gpuwatch::store_test {

namespace fs = std::filesystem;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kWall0 = 1'700'000'000 * kSecond;

class RawDb {
 public:
  explicit RawDb(const fs::path& path) { sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr); }
  ~RawDb() { sqlite3_close_v2(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  std::string text(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    std::string out = "<error>";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_ROW) {
        const unsigned char* p = sqlite3_column_text(st, 0);
        out = p ? reinterpret_cast<const char*>(p) : "<null>";
      } else if (rc == SQLITE_DONE) {
        out = "<none>";
      }
    }
    sqlite3_finalize(st);
    return out;
  }
  bool exec(const std::string& sql) { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK; }
  sqlite3* get() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gpuwatch-store-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ / "sub" / "runs.db";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::vector<DeviceInfo> two_devices() {
    std::vector<DeviceInfo> devs;
    for (int i = 0; i < 2; ++i) {
      DeviceInfo d;
      d.index = i;
      d.backend = "nvml";
      d.vendor = "NVIDIA";
      d.name = "NVIDIA H100 80GB HBM3";
      d.uuid = "GPU-" + std::to_string(i);
      d.pci_bus_id = "0000:3b:00." + std::to_string(i);
      d.driver_version = "550.54.15";
      d.supported = {DeviceMetric::GpuUtilPercent, DeviceMetric::PowerWatts};
      d.static_values.set(DeviceMetric::SmClockMaxMhz, 1980);
      d.static_values.set(DeviceMetric::MemTotalBytes, 85899345920.0);
      devs.push_back(d);
    }
    return devs;
  }

  static DeviceSample device_sample(int dev, std::int64_t i) {
    DeviceSample s;
    s.device_index = dev;
    s.time = {5 * kSecond + i * kSecond / 10, kWall0 + i * kSecond / 10};
    s.values.set(DeviceMetric::GpuUtilPercent, static_cast<double>((i * 7) % 101));
    s.values.set(DeviceMetric::PowerWatts, 300.125 + static_cast<double>(dev));
    if (i % 3 != 0) s.values.set(DeviceMetric::TempGpuCelsius, 60.5);
    return s;
  }

  static HostSample host_sample(std::int64_t i, std::size_t cores) {
    HostSample h;
    h.time = {5 * kSecond + i * kSecond / 10, kWall0 + i * kSecond / 10};
    h.values.set(HostMetric::CpuPercent, 12.5);
    h.values.set(HostMetric::MemUsedBytes, 1e9 + static_cast<double>(i));
    for (std::size_t c = 0; c < cores; ++c) h.core_percent.push_back(static_cast<double>(c) + 0.25);
    return h;
  }

  static RunInfo new_run(const std::string& name) {
    RunInfo r;
    r.name = name;
    r.command = {"python", "train.py", "--lr", "3e-4"};
    r.interval_s = 0.1;
    return r;
  }

  fs::path dir_;
  fs::path path_;
};

}  // namespace gpuwatch::store_test
