#include "http/compression.h"

#include <zlib.h>

#include <string>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

std::string gunzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 31), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

TEST(Compression, AcceptEncodingAsBrowsersAndCurlSendIt) {
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br, zstd"));  // Chromium
  EXPECT_TRUE(accepts_gzip("deflate, gzip"));             // curl --compressed
  EXPECT_TRUE(accepts_gzip("GZIP"));
  EXPECT_TRUE(accepts_gzip("x-gzip"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, gzip;q=0.8, *;q=0.1"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("br, deflate"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("*, gzip;q=0"));  // refused by name wins
  EXPECT_FALSE(accepts_gzip("gzip;q=nonsense"));
  EXPECT_FALSE(accepts_gzip("gzipped"));
  EXPECT_FALSE(accepts_gzip(",,;;q=,"));
}

TEST(Compression, GzipRoundTripsAndShrinksJson) {
  std::string json = "{\"schema_version\": 2, \"t\": [";
  for (int i = 0; i < 5000; ++i) json += std::to_string(i * 1.5) + ",";
  json += "0]}";
  const auto packed = gzip_compress(json);
  ASSERT_TRUE(packed);
  ASSERT_GE(packed->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*packed)[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>((*packed)[1]), 0x8b);
  EXPECT_LT(packed->size() * 3, json.size());
  EXPECT_EQ(gunzip(*packed), json);
  EXPECT_EQ(gunzip(*gzip_compress("")), "");
}

}  // namespace
}  // namespace gpuwatch
