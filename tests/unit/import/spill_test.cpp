// The temporary file an import spills to: what is appended reads back the
// same, in passes and at any offset, across its write and read buffers; it
// has no name, so nothing of it outlives the import.
#include "import/spill.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "import/import.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

TEST(SpillFile, ReadsBackWhatWasAppendedFromFileOrMemory) {
  char pattern[] = "/tmp/gw-spill-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  for (const bool on_disk : {true, false}) {
    SpillFile spill = on_disk ? SpillFile(dir) : SpillFile();
    // 3 MiB of numbered records: across the 1 MiB write buffer and read buffer.
    constexpr std::uint64_t kCount = 3 * (1 << 20) / 8;
    for (std::uint64_t i = 0; i < kCount; ++i) spill_put(spill, i * 7);
    EXPECT_EQ(spill.size(), kCount * 8);
    EXPECT_TRUE(fs::is_empty(dir)) << "the file has no name";
    for (int pass = 0; pass < 2; ++pass) {
      SpillFile::Reader in(spill);
      std::uint64_t v = 0;
      std::uint64_t n = 0;
      while (spill_get(in, v)) ASSERT_EQ(v, 7 * n++);
      EXPECT_EQ(n, kCount);
    }
    for (const std::uint64_t i : {std::uint64_t{0}, std::uint64_t{131071}, kCount - 1}) {
      SpillFile::Reader at(spill, i * 8, 16);
      std::uint64_t v = 0;
      ASSERT_TRUE(spill_get(at, v));
      EXPECT_EQ(v, 7 * i);
    }
    spill_put(spill, std::uint64_t{42});  // appending after reading
    std::uint64_t last = 0;
    EXPECT_EQ(spill.read_at(kCount * 8, &last, 8), 8u);
    EXPECT_EQ(last, 42u);
  }
  EXPECT_THROW(SpillFile(dir / "no-such-directory"), ImportError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch
