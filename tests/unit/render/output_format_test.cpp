#include "render/output_format.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "render/seed_files.h"

namespace gpuwatch {
namespace {

TEST(OutputFormat, EveryNameParsesBackToItsFormat) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(OutputFormat::kCount); ++i) {
    const auto format = static_cast<OutputFormat>(i);
    EXPECT_EQ(parse_output_format(output_format_name(format)), format) << output_format_name(format);
  }
  EXPECT_EQ(output_format_name(OutputFormat::multi_json), "multi-json");
}

TEST(OutputFormat, OtherWordsAreNoFormat) {
  EXPECT_EQ(parse_output_format("yaml"), std::nullopt);
  EXPECT_EQ(parse_output_format("table"), std::nullopt);  // sample's word for text, its command line's alone
  EXPECT_EQ(parse_output_format("JSON"), std::nullopt);
  EXPECT_EQ(parse_output_format(""), std::nullopt);
}

TEST(OutputFormat, JsonAndJsonLinesAreJson) {
  EXPECT_TRUE(is_json(OutputFormat::json));
  EXPECT_TRUE(is_json(OutputFormat::jsonl));
  EXPECT_FALSE(is_json(OutputFormat::text));
  EXPECT_FALSE(is_json(OutputFormat::multi_json));
  EXPECT_FALSE(is_json(OutputFormat::csv));
}

TEST(OutputFormat, ExportWritesNothingForTensorboard) {
  RunData run;
  std::string out;
  write_export(run, OutputFormat::tensorboard, std::nullopt, [&out](std::string_view s) { out += s; });
  EXPECT_TRUE(out.empty());
  write_export(run, OutputFormat::csv, std::nullopt, [&out](std::string_view s) { out += s; });
  EXPECT_EQ(out.rfind("timestamp", 0), 0u) << out;  // the csv header
}

}  // namespace
}  // namespace gpuwatch
