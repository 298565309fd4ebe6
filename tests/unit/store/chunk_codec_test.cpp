#include "store/chunk_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace gpuwatch {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kMax = std::numeric_limits<std::int64_t>::max();

Chunk regular_chunk(std::size_t n, std::size_t k, unsigned seed, int absent_every = 0) {
  std::mt19937_64 rng(seed);
  Chunk c;
  std::int64_t mono = 1'000'000'000;
  std::int64_t wall = 1'700'000'000'000'000'000;
  c.columns.assign(k, ChunkColumn(n));
  std::vector<std::int64_t> level(k, 50'000);
  for (std::size_t i = 0; i < n; ++i) {
    const auto jitter = static_cast<std::int64_t>(rng() % 200'000);
    mono += 500'000'000 + jitter;
    wall += 500'000'000 + jitter;
    c.mono_ns.push_back(mono);
    c.wall_ns.push_back(wall);
    for (std::size_t j = 0; j < k; ++j) {
      level[j] += static_cast<std::int64_t>(rng() % 2001) - 1000;
      const bool absent = absent_every > 0 && (i + j) % static_cast<std::size_t>(absent_every) == 0;
      if (!absent) c.columns[j][i] = level[j];
    }
  }
  return c;
}

void expect_round_trip(const Chunk& c) {
  const Bytes blob = encode_chunk(c);
  std::string why;
  const auto back = decode_chunk(blob, &why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(*back, c);
}

TEST(ChunkCodec, EmptyChunk) {
  Chunk c;
  c.columns.resize(3);
  expect_round_trip(c);
}

TEST(ChunkCodec, KnownEncodingDocumentsTheFormat) {
  Chunk c;
  c.mono_ns = {10, 20};
  c.wall_ns = {5, 5};
  c.columns = {{std::nullopt, 7}, {1, 2}, {std::nullopt, std::nullopt}};
  // format, n, K; mono dods zz(10), zz(0); wall dods zz(5), zz(-5);
  // column 0: mixed, bitmap 0b10, zz(7); column 1: all present, zz(1), zz(1);
  // column 2: all absent.
  const Bytes expected{1, 2, 3, 20, 0, 10, 9, 2, 0x02, 14, 1, 2, 2, 0};
  EXPECT_EQ(encode_chunk(c), expected);
  expect_round_trip(c);
}

TEST(ChunkCodec, AllPresentAllAbsentAndMixedColumns) {
  Chunk c = regular_chunk(37, 5, 1);
  c.columns[1].assign(37, std::nullopt);
  for (std::size_t i = 0; i < 37; i += 3) c.columns[2][i].reset();
  c.columns[3][36].reset();  // only the last row absent: bitmap's last byte
  c.columns[4][0].reset();
  expect_round_trip(c);
}

TEST(ChunkCodec, NegativeDeltasAndExtremeValues) {
  Chunk c;
  c.mono_ns = {100, 50, -7, kMax, kMin, 0, kMin, kMax};
  c.wall_ns = {kMax, kMin, 0, -1, 1, kMax, kMax, kMin};
  c.columns = {{kMax, kMin, kMax, -1, 0, std::nullopt, kMin, 1},
               {-5, -10, -20, -40, std::nullopt, -80, 80, 0}};
  expect_round_trip(c);
}

TEST(ChunkCodec, ManyRowsWithRandomPresence) {
  std::mt19937_64 rng(42);
  for (const std::size_t n : {1u, 7u, 8u, 9u, 1000u, 20000u}) {
    Chunk c = regular_chunk(n, 23, static_cast<unsigned>(n), 0);
    for (auto& col : c.columns) {
      for (auto& v : col) {
        if (rng() % 4 == 0) v.reset();
      }
    }
    expect_round_trip(c);
  }
}

TEST(ChunkCodec, RegularSamplesPackTightly) {
  const Chunk c = regular_chunk(1000, 23, 3);
  const Bytes blob = encode_chunk(c);
  // Raw: 1000 rows x (2 timestamps + 23 values) x 8 bytes = 200 kB.
  EXPECT_LT(blob.size(), 1000u * (2 * 3 + 23 * 2));
}

TEST(ChunkCodec, EncodeRejectsInconsistentChunks) {
  Chunk c = regular_chunk(4, 2, 1);
  c.wall_ns.pop_back();
  EXPECT_THROW(encode_chunk(c), std::invalid_argument);
  c = regular_chunk(4, 2, 1);
  c.columns[1].pop_back();
  EXPECT_THROW(encode_chunk(c), std::invalid_argument);
  EXPECT_GE(max_chunk_rows(kChunkMaxColumns), 1u);
  EXPECT_LE(max_chunk_rows(kChunkMaxColumns) * kChunkMaxColumns, kChunkMaxCells);
  EXPECT_EQ(max_chunk_rows(0), kChunkMaxRows);
}

TEST(ChunkCodec, EveryTruncationIsRejected) {
  Chunk c = regular_chunk(50, 6, 9, 4);
  const Bytes blob = encode_chunk(c);
  for (std::size_t len = 0; len < blob.size(); ++len) {
    EXPECT_FALSE(decode_chunk(std::span(blob.data(), len)).has_value()) << "length " << len;
  }
}

// The reader's path: chosen columns only, the others and the wall clock
// stepped over. Values must be decode_chunk's, whatever is skipped.
TEST(ChunkCodec, AppendDecodesChosenColumnsAndSkipsTheRest) {
  std::mt19937_64 rng(7);
  for (const std::size_t n : {1u, 7u, 8u, 9u, 63u, 1000u}) {
    Chunk c = regular_chunk(n, 9, static_cast<unsigned>(n), 3);
    c.columns[4].assign(n, std::nullopt);  // all absent
    // Large values: varints of up to ten bytes among the skipped ones.
    for (auto& v : c.columns[6]) v = static_cast<std::int64_t>(rng());
    const Bytes blob = encode_chunk(c);
    for (const std::size_t chosen : {0u, 4u, 6u, 8u}) {
      std::vector<double> out{-1.0};  // appended to, not replaced
      std::vector<ColumnTarget> targets(chosen + 1);
      targets[chosen] = {&out, 10};
      std::vector<std::int64_t> mono{5};
      std::string why;
      const auto rows = decode_chunk_append(blob, targets, mono, nullptr, &why);
      ASSERT_EQ(rows, n) << why;
      ASSERT_EQ(mono.size(), n + 1);
      ASSERT_EQ(out.size(), n + 1);
      EXPECT_EQ(out[0], -1.0);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(mono[i + 1], c.mono_ns[i]);
        const auto& v = c.columns[chosen][i];
        if (v) {
          EXPECT_EQ(out[i + 1], static_cast<double>(*v) / 10) << "column " << chosen << " row " << i;
        } else {
          EXPECT_TRUE(std::isnan(out[i + 1]));
        }
      }
    }
  }
}

TEST(ChunkCodec, AppendRejectsEveryTruncationAndLeavesOutputsAsTheyWere) {
  const Chunk c = regular_chunk(50, 6, 9, 4);
  const Bytes blob = encode_chunk(c);
  for (std::size_t len = 0; len < blob.size(); ++len) {
    std::vector<double> out{1.0};
    const ColumnTarget targets[] = {{nullptr, 1}, {&out, 1}};  // the last columns are skipped
    std::vector<std::int64_t> mono{1};
    std::vector<std::int64_t> wall;
    const bool with_wall = len % 2 == 0;
    std::string why;
    EXPECT_FALSE(decode_chunk_append(std::span(blob.data(), len), targets, mono, with_wall ? &wall : nullptr, &why)
                     .has_value())
        << "length " << len;
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(out, std::vector<double>{1.0});
    EXPECT_EQ(mono, std::vector<std::int64_t>{1});
    EXPECT_TRUE(wall.empty());
  }
}

TEST(ChunkCodec, ColumnCountComesFromTheHeaderAlone) {
  const Bytes blob = encode_chunk(regular_chunk(300, 22, 7));
  const std::span<const std::uint8_t> bytes(blob);
  EXPECT_EQ(chunk_column_count(bytes.first(21)), 22u);
  EXPECT_EQ(chunk_column_count(bytes.first(4)), 22u);  // format, 300 (two bytes), 22
  EXPECT_FALSE(chunk_column_count(bytes.first(3)).has_value());
  EXPECT_FALSE(chunk_column_count({}).has_value());
  const Bytes other_format = {2, 1, 1};
  EXPECT_FALSE(chunk_column_count(other_format).has_value());
  const Bytes too_many_columns = {kChunkFormat, 1, 0xff, 0xff, 0x03};  // 65535 columns
  EXPECT_FALSE(chunk_column_count(too_many_columns).has_value());
}

TEST(ChunkCodec, MalformedInputsAreRejected) {
  std::string why;
  // Unknown format byte.
  EXPECT_FALSE(decode_chunk(Bytes{2, 0, 0}, &why));
  EXPECT_FALSE(why.empty());
  // Header claims more rows than allowed.
  EXPECT_FALSE(decode_chunk(Bytes{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}));
  // Rows x columns beyond the cell limit, with plausible sizes otherwise.
  EXPECT_FALSE(decode_chunk(Bytes{1, 0x80, 0x80, 0x01, 0x80, 0x40}));
  // Header promises more bytes than there are.
  EXPECT_FALSE(decode_chunk(Bytes{1, 100, 100, 0, 0}));
  // An overlong varint (11 bytes).
  Bytes overlong{1, 1, 0};
  overlong.insert(overlong.end(), 10, 0x80);
  overlong.push_back(0);
  EXPECT_FALSE(decode_chunk(overlong));
  // Unknown column tag.
  EXPECT_FALSE(decode_chunk(Bytes{1, 1, 1, 0, 0, 3}));
  // Bitmap with a bit set past the last row.
  EXPECT_FALSE(decode_chunk(Bytes{1, 1, 1, 0, 0, 2, 0x03, 0}));
  // Trailing garbage after a valid chunk.
  Bytes valid = encode_chunk(regular_chunk(3, 2, 1));
  ASSERT_TRUE(decode_chunk(valid));
  valid.push_back(0);
  EXPECT_FALSE(decode_chunk(valid));
}

TEST(ChunkCodec, RandomCorruptionNeverCrashes) {
  std::mt19937_64 rng(7);
  const Bytes good = encode_chunk(regular_chunk(64, 10, 5, 3));
  for (int round = 0; round < 20000; ++round) {
    Bytes b = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    const auto c = decode_chunk(b);
    if (c) {
      // Whatever decodes must be self-consistent.
      for (const auto& col : c->columns) ASSERT_EQ(col.size(), c->rows());
      ASSERT_EQ(c->wall_ns.size(), c->rows());
    }
  }
  for (int round = 0; round < 20000; ++round) {
    Bytes b(rng() % 64);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    if (!b.empty() && round % 2 == 0) b[0] = kChunkFormat;
    (void)decode_chunk(b);
  }
}

TEST(ChunkCodec, FixedPointConversions) {
  EXPECT_EQ(to_fixed(12.345, 1000), 12345);
  EXPECT_EQ(from_fixed(12345, 1000), 12.345);
  EXPECT_EQ(to_fixed(-0.5, 100), -50);
  EXPECT_EQ(from_fixed(to_fixed(87.25, 100), 100), 87.25);
  EXPECT_EQ(to_fixed(81920.0 * 1024 * 1024, 1), 85899345920);
  EXPECT_FALSE(to_fixed(std::nan(""), 1).has_value());
  EXPECT_FALSE(to_fixed(std::numeric_limits<double>::infinity(), 1).has_value());
  EXPECT_EQ(to_fixed(1e300, 1), kMax);
  EXPECT_EQ(to_fixed(-1e300, 1), kMin);
  EXPECT_TRUE(std::isnan(from_fixed(std::nullopt, 1000)));
}

}  // namespace
}  // namespace gpuwatch
