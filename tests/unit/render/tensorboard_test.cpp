#include "render/tensorboard/tensorboard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "render/tensorboard/tfrecord.h"

namespace gpuwatch {
namespace {

using tensorboard::crc32c;

TEST(TfRecord, Crc32cKnownAnswers) {
  // RFC 3720's check value, and the empty string.
  EXPECT_EQ(crc32c("123456789"), 0xE3069283U);
  EXPECT_EQ(crc32c(""), 0U);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAU);  // RFC 3720 B.4: 32 bytes of zeros
}

TEST(TfRecord, RecordIsLengthCrcDataCrc) {
  std::string out;
  tensorboard::append_record(out, "abc");
  ASSERT_EQ(out.size(), 8U + 4 + 3 + 4);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 3U);
  for (int i = 1; i < 8; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], '\0');
  EXPECT_EQ(out.substr(12, 3), "abc");
  const std::uint32_t stored = static_cast<unsigned char>(out[15]) | static_cast<unsigned char>(out[16]) << 8 |
                               static_cast<unsigned char>(out[17]) << 16 |
                               static_cast<std::uint32_t>(static_cast<unsigned char>(out[18])) << 24;
  EXPECT_EQ(stored, tensorboard::masked_crc32c("abc"));
}

TEST(TfRecord, ScalarEventBytes) {
  // wall_time 1.0, step 300, tag "t", value 0.5: the protobuf encoding, field by field.
  const std::string e = tensorboard::scalar_event(1.0, 300, "t", 0.5F);
  const std::string expected = std::string("\x09\x00\x00\x00\x00\x00\x00\xf0\x3f", 9) +  // 1: double 1.0
                               std::string("\x10\xac\x02", 3) +                         // 2: varint 300
                               std::string("\x2a\x0a", 2) +                              // 5: 10 bytes
                               std::string("\x0a\x08", 2) +                              //   1: 8 bytes
                               std::string("\x0a\x01t", 3) +                             //     1: "t"
                               std::string("\x15\x00\x00\x00\x3f", 5);                   //     2: float 0.5
  EXPECT_EQ(e, expected);
}

TEST(Tensorboard, TagsStepsAndLongSeriesReduced) {
  RunData data;
  data.run.start_wall_ns = 1'700'000'000'000'000'000;
  data.run.start_mono_ns = 5'000'000'000;
  data.run.host = "node/1";
  DeviceSeries d;
  d.info.index = 3;
  d.values.resize(kDeviceMetricCount);
  const std::size_t n = kMaxTensorboardPointsPerTag * 2 + 1;
  for (std::size_t i = 0; i < n; ++i) {
    d.mono_ns.push_back(data.run.start_mono_ns + static_cast<std::int64_t>(i) * 100'000'000);
    for (auto& column : d.values) column.push_back(std::nan(""));
    d.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)].back() = 50;
  }
  data.devices.push_back(d);
  data.events.push_back(Event{{data.run.start_mono_ns + 1'000'000'000, 0}, std::nullopt, "step", "7"});
  data.events.push_back(Event{{data.run.start_mono_ns + 2'000'000'000, 0}, std::nullopt, "log", "loss=0.25"});
  std::string out;
  write_tensorboard_events(data, [&](std::string_view s) { out += s; });
  // Records: file_version, the utilization in runs of 3 samples (20,001 over 10,000 points: 6,667), one loss.
  std::size_t records = 0;
  for (std::size_t at = 0; at + 12 <= out.size(); ++records) {
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(out[at + static_cast<std::size_t>(i)]);
    at += 12 + length + 4;
  }
  EXPECT_EQ(records, 1U + 6667U + 1U);
  EXPECT_NE(out.find("gpu3/gpu_util_percent"), std::string::npos);
  EXPECT_NE(out.find("log/loss"), std::string::npos);
  EXPECT_EQ(out.find("gpu3/power_watts"), std::string::npos) << "a metric without values has no tag";
  EXPECT_EQ(tensorboard_file_name(data), "events.out.tfevents.1700000000.node_1.gpuwatch");
}

}  // namespace
}  // namespace gpuwatch
