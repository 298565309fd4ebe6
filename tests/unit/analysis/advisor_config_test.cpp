#include "analysis/advisor/config.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_advisor_config(text);
  } catch (const AdvisorConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AdvisorConfig, DefaultsAreTheSeedsNumbers) {
  const AdvisorConfig c;
  EXPECT_EQ(c.window_s, 60);
  EXPECT_EQ(c.warmup_s, 60);
  EXPECT_EQ(c.model_size, ModelSize::Auto);
  EXPECT_EQ(c.large_model_params, 25e6);
  EXPECT_EQ(c.memory_low_percent, 50);
  EXPECT_EQ(c.memory_good_percent, 70);
  EXPECT_EQ(c.memory_high_percent, 90);
  EXPECT_EQ(c.util_low_percent, 30);
}

TEST(AdvisorConfig, ParsesKeysCommentsAndBlankLines) {
  const AdvisorConfig c = parse_advisor_config(
      "# thresholds for the big cluster\n"
      "\n"
      "window_s = 120\r\n"
      "  model_size=large   # we train ViTs\n"
      "memory_low_percent = 40\n"
      "input_idle_gaps = 5\n"
      "large_model_params = 1.5e8\n");
  EXPECT_EQ(c.window_s, 120);
  EXPECT_EQ(c.model_size, ModelSize::Large);
  EXPECT_EQ(c.memory_low_percent, 40);
  EXPECT_EQ(c.input_idle_gaps, 5);
  EXPECT_EQ(c.large_model_params, 1.5e8);
  EXPECT_EQ(c.warmup_s, 60);  // untouched keys keep their defaults
  EXPECT_EQ(parse_advisor_config("").window_s, 60);
  EXPECT_EQ(parse_advisor_config("model_size = small").model_size, ModelSize::Small);
}

TEST(AdvisorConfig, ErrorsNameTheLine) {
  EXPECT_EQ(error_of("window_s = 60\nwindow = 30\n"), "line 2: unknown key 'window'");
  EXPECT_EQ(error_of("# c\n\nwindow_s 60\n"), "line 3: expected key = value, got 'window_s 60'");
  EXPECT_EQ(error_of("window_s = sixty"), "line 1: 'sixty' is not a number (for window_s)");
  EXPECT_EQ(error_of("window_s = 60s"), "line 1: '60s' is not a number (for window_s)");
  EXPECT_EQ(error_of("window_s = nan"), "line 1: 'nan' is not a number (for window_s)");
  EXPECT_EQ(error_of("window_s = inf"), "line 1: 'inf' is not a number (for window_s)");
  EXPECT_EQ(error_of("window_s ="), "line 1: window_s has no value");
  EXPECT_EQ(error_of("\nwindow_s = 0"), "line 2: window_s must be above 0 and at most 10000000 (got 0)");
  EXPECT_EQ(error_of("warmup_s = -1"), "line 1: warmup_s must be from 0 to 10000000 (got -1)");
  // Seconds become nanoseconds in an int64 downstream: a "never" of 1e10 s
  // would overflow it (and a stored run's config comes from outside).
  EXPECT_EQ(error_of("hang_after_s = 1e10"),
            "line 1: hang_after_s must be above 0 and at most 10000000 (got 10000000000)");
  EXPECT_EQ(error_of("window_s = 1e300"), "line 1: window_s must be above 0 and at most 10000000 (got 1e+300)");
  EXPECT_EQ(error_of("util_low_percent = 101"), "line 1: util_low_percent must be between 0 and 100 (got 101)");
  EXPECT_EQ(error_of("leak_min_epochs = 2.5"),
            "line 1: leak_min_epochs must be a whole number from 1 to 1000000 (got 2.5)");
  EXPECT_EQ(error_of("leak_min_epochs = 0"),
            "line 1: leak_min_epochs must be a whole number from 1 to 1000000 (got 0)");
  EXPECT_EQ(error_of("model_size = huge"), "line 1: model_size must be auto, small or large (got 'huge')");
  EXPECT_EQ(error_of("window_s = 1\nwindow_s = 2"), "line 2: window_s is set twice (first on line 1)");
  EXPECT_EQ(error_of("= 3"), "line 1: unknown key ''");
}

TEST(AdvisorConfig, LowMustStayBelowHigh) {
  // The line of the later key of the two is blamed, whichever it is.
  EXPECT_EQ(error_of("memory_low_percent = 70\n"),
            "line 1: memory_low_percent (70) must be below memory_good_percent (70)");
  EXPECT_EQ(error_of("memory_good_percent = 95\n# x\nmemory_high_percent = 90\n"),
            "line 3: memory_good_percent (95) must be below memory_high_percent (90)");
  EXPECT_EQ(parse_advisor_config("memory_low_percent = 60\nmemory_good_percent = 80\n").memory_good_percent, 80);
  EXPECT_EQ(error_of("data_wait_warning_percent = 25\n"),
            "line 1: data_wait_warning_percent (25) must be below data_wait_critical_percent (20)");
  EXPECT_EQ(error_of("data_wait_min_steps = 0"),
            "line 1: data_wait_min_steps must be a whole number from 1 to 1000000 (got 0)");
  const AdvisorConfig c = parse_advisor_config("data_wait_warning_percent = 5\ndata_wait_critical_percent = 15\n");
  EXPECT_EQ(c.data_wait_warning_percent, 5);
  EXPECT_EQ(c.data_wait_critical_percent, 15);
}

TEST(AdvisorConfig, TheDefaultsFileReadsBackAsTheDefaults) {
  const std::string text = format_advisor_config();
  EXPECT_NE(text.find("\nwindow_s = 60\n"), std::string::npos);
  EXPECT_NE(text.find("\nmodel_size = auto\n"), std::string::npos);
  EXPECT_NE(text.find("\nlarge_model_params = 25000000\n"), std::string::npos);
  EXPECT_NE(text.find("# "), std::string::npos);
  const AdvisorConfig back = parse_advisor_config(text);
  const AdvisorConfig defaults;
  EXPECT_EQ(format_advisor_config(back), text);
  EXPECT_EQ(back.memory_high_percent, defaults.memory_high_percent);
  // A changed config round-trips too.
  AdvisorConfig changed;
  changed.model_size = ModelSize::Small;
  changed.leak_epoch_growth_mib = 12.5;
  const AdvisorConfig again = parse_advisor_config(format_advisor_config(changed));
  EXPECT_EQ(again.model_size, ModelSize::Small);
  EXPECT_EQ(again.leak_epoch_growth_mib, 12.5);
  for (std::size_t start = 0; start < text.size();) {  // fits a terminal
    const std::size_t end = std::min(text.find('\n', start), text.size());
    EXPECT_LE(end - start, 100u) << text.substr(start, end - start);
    start = end + 1;
  }
}

}  // namespace
}  // namespace gpuwatch
