// Files are read a chunk at a time: what is not a regular file is refused
// before anything is read, and records cut by a chunk's end come out whole.
#include "import/text_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "import/import.h"
#include "import/limits.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

std::string error_of(const fs::path& path) {
  try {
    import_file(path);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "no error";
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gw-text-source-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  fs::path dir_;
  ZoneGuard zone_{"UTC0"};
};

TEST_F(TempDir, WhatIsNotARegularFileIsRefusedUnread) {
  EXPECT_EQ(error_of("/dev/zero"),
            "/dev/zero: a character device, not a regular file: gpuwatch imports regular files only (save the data "
            "to a file first)");
  // A FIFO without a writer: opening it for reading would wait forever.
  const fs::path fifo = dir_ / "pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of(fifo).find("a FIFO (named pipe), not a regular file"), std::string::npos);
  EXPECT_NE(error_of(dir_).find("a directory, not a regular file"), std::string::npos);
  EXPECT_NE(error_of(dir_ / "missing.json").find("cannot read it: No such file or directory"), std::string::npos);
}

// Samples with the line number in several fields, so that every record of a
// several-MB file is told apart from its neighbours.
std::string jsonl_text(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "{\"type\":\"device\",\"wall_ns\":" + std::to_string(1736937000000000000LL + i * 100000000LL) +
            ",\"gpu_index\":" + std::to_string(i % 3) + ",\"gpu_name\":\"GPU " + std::string(i % 97, 'x') +
            "\",\"power_watts\":" + std::to_string(i % 700) + ".5}\n";
  }
  return text;
}

void expect_same_run(const ImportResult& a, const ImportResult& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.samples_read, b.samples_read);
  EXPECT_EQ(a.samples_dropped, b.samples_dropped);
  EXPECT_EQ(a.warnings, b.warnings);
  ASSERT_EQ(a.data.devices.size(), b.data.devices.size());
  for (std::size_t d = 0; d < a.data.devices.size(); ++d) {
    EXPECT_EQ(a.data.devices[d].wall_ns, b.data.devices[d].wall_ns);
    EXPECT_EQ(a.data.devices[d].info.name, b.data.devices[d].info.name);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      const auto& x = a.data.devices[d].values[m];
      const auto& y = b.data.devices[d].values[m];
      ASSERT_EQ(x.size(), y.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_TRUE(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) << "metric " << m << " row " << i;
      }
    }
  }
}

TEST_F(TempDir, JsonLinesAcrossChunksReadAsInMemory) {
  const std::string text = jsonl_text(40000) + "{\"type\":\"device\",\"wall_ns\":17";  // ~4 MB, cut at the end
  ASSERT_GT(text.size(), 3u << 20);
  const ImportResult from_file = import_file(write("big.jsonl", text));
  EXPECT_EQ(from_file.samples_read, 40000u);
  EXPECT_EQ(from_file.samples_dropped, 1u);
  expect_same_run(from_file, import_text(text, "big"));
}

TEST_F(TempDir, JsonArraysAndCsvAcrossChunksReadAsInMemory) {
  std::string array = "\xEF\xBB\xBF[\n";
  std::string csv = "timestamp,elapsed_s,gpu_index,gpu_name,power_watts\n";
  for (int i = 0; i < 30000; ++i) {
    char second[32];
    std::snprintf(second, sizeof second, "%02d:%02d:%02d", i / 3600, i / 60 % 60, i % 60);
    array += (i ? ",\n" : "") + std::string("{\"timestamp\": \"2025-01-15T") + second +
             "\", \"gpu_name\": \"A \\\"quoted\\\" ]}, name" + std::string(i % 61, 'y') +
             "\", \"power\": " + std::to_string(i % 500) + "}";
    csv += "2025-01-15T" + std::string(second) + ".000Z," + std::to_string(i) + ",0,\"GPU, " + std::string(i % 53, 'z') +
           "\"," + std::to_string(i % 500) + "\n";
  }
  array += "\n]  trailing";
  ASSERT_GT(array.size(), 2u << 20);
  ASSERT_GT(csv.size(), 2u << 20);
  const ImportResult json_file = import_file(write("big.json", array));
  EXPECT_EQ(json_file.samples_read, 30000u);
  expect_same_run(json_file, import_text(array, "big"));
  const ImportResult csv_file = import_file(write("big.csv", csv));
  EXPECT_EQ(csv_file.samples_read, 30000u);
  expect_same_run(csv_file, import_text(csv, "big"));
}

TEST_F(TempDir, ARecordAcrossChunksIsReadWhole) {
  // The second line straddles the first 1 MiB read.
  std::string text;
  for (const std::size_t note_bytes : {600'000, 900'000}) {
    text += "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"note\":\"" +
            std::string(note_bytes, 'n') + "\",\"power_watts\":1}\n";
  }
  const ImportResult r = import_file(write("wide.jsonl", text));
  EXPECT_EQ(r.samples_read, 2u);
  expect_same_run(r, import_text(text, "wide"));
}

// Issue 22 item 12: a 1 GB record took 3 GB and failed in SQLite with "string
// or blob too big", naming no file or field.
TEST_F(TempDir, ARecordOverTheLimitIsAnErrorThatNamesTheFileLineAndField) {
  const std::string line = "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"power_watts\":1}\n";
  const std::string huge = "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"gpu_name\":\"" +
                           std::string(kMaxRecordBytes, 'n') + "\"}\n";
  const fs::path path = write("huge.jsonl", line + line + huge + line);
  const std::string what = error_of(path);
  EXPECT_EQ(what.rfind(path.string() + ": line 3: a record longer than 1 MiB, in the field \"gpu_name\"", 0), 0u)
      << what;
  // The same over text in memory, read whole or a few bytes at a time.
  const std::string text = line + huge;
  EXPECT_THROW((void)import_text(text, "huge"), ImportError);
  EXPECT_THROW((void)import_text_in_chunks(text, "huge", 4096), ImportError);

  // A JSON array: the element, and the field inside a multi-GPU tick.
  const std::string tick = R"({"timestamp": "2025-01-15T10:30:00", "multi_gpu_data": [{"utilization": 1}, )"
                           R"({"utilization": 2, "clocks": {"gpu": ")" + std::string(kMaxRecordBytes, '9') + "\"}}]}";
  const std::string array =
      "[" + std::string(R"({"timestamp": "2025-01-15T10:30:00", "power": 1})") + ", " + tick + "]";
  EXPECT_NE(error_of(write("huge.json", array))
                .find("element 2 of the array (at byte 51): a record longer than 1 MiB, in the field "
                      "\"multi_gpu_data[1].clocks.gpu\""),
            std::string::npos);

  // A CSV row: the column.
  const std::string csv = "timestamp,elapsed_s,gpu_index,gpu_name,power_watts\n"
                          "2025-01-15T10:30:00.000Z,0,0,\"" + std::string(kMaxRecordBytes, 'g') + "\",1\n";
  EXPECT_NE(error_of(write("huge.csv", csv)).find(": line 2: a record longer than 1 MiB, in the field \"gpu_name\""),
            std::string::npos);
}

TEST_F(TempDir, ANameOverTheLimitIsAnErrorThatNamesTheField) {
  const std::string name(kMaxNameBytes + 1, 'n');
  const std::string text = "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"power_watts\":1}\n"
                           "{\"type\":\"device\",\"wall_ns\":1736937000100000000,\"gpu_index\":0,\"gpu_name\":\"" +
                           name + "\"}\n";
  EXPECT_NE(error_of(write("long-name.jsonl", text))
                .find("long-name.jsonl: line 2: the field \"gpu_name\" is 4097 bytes long"),
            std::string::npos);
  const std::string multi = R"([{"timestamp": "2025-01-15T10:30:00", "multi_gpu_data": [{"utilization": 1}, )"
                            R"({"utilization": 2, "gpu_name": ")" + name + "\"}]}]";
  EXPECT_NE(error_of(write("long-name.json", multi))
                .find("element 1: the field \"multi_gpu_data[1].gpu_name\" is 4097 bytes"),
            std::string::npos);
}

TEST_F(TempDir, EveryFixtureReadsTheSameInChunksOfAnySize) {
  for (const auto& entry : fs::directory_iterator(fs::path(GPUWATCH_FIXTURES) / "import")) {
    if (entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    const std::string text = content.str();
    const ImportResult whole = import_text(text, "whole");
    for (const std::size_t chunk : {1, 2, 7, 64, 4096}) {
      SCOPED_TRACE(entry.path().filename().string() + " in chunks of " + std::to_string(chunk));
      expect_same_run(whole, import_text_in_chunks(text, "chunks", chunk));
    }
  }
}

TEST(TextSource, MemoryIsOneWindow) {
  TextSource in(std::string_view("  \n[1]"));
  EXPECT_TRUE(in.skip_space());
  EXPECT_EQ(in.window(), "[1]");
  EXPECT_EQ(in.offset(), 3u);
  EXPECT_FALSE(in.more());
}

}  // namespace
}  // namespace gpuwatch
