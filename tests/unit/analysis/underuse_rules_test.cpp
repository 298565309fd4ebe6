#include "analysis/advisor/underuse_rules.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Advisory underuse(std::string id) { return Advisory{std::move(id), Severity::Warning, 0, "", {}, "", true}; }

TEST(UnderuseRules, ByDefaultOnlyUtilizationActs) {
  const UnderuseRules rules;
  EXPECT_TRUE(rules.acts_on(underuse("util.low")));
  EXPECT_TRUE(rules.acts_on(underuse("util.input_bound")));
  EXPECT_TRUE(rules.acts_on(underuse("util.host_bound")));
  // Issue 9: 80 % busy, 49 % memory was killed for this one.
  EXPECT_FALSE(rules.acts_on(underuse("memory.batch_too_small")));
  EXPECT_EQ(rules.to_string(), "util.*");
}

TEST(UnderuseRules, AListNamesWhatActs) {
  const UnderuseRules rules = UnderuseRules::parse("memory.batch_too_small, util.low");
  EXPECT_TRUE(rules.acts_on(underuse("memory.batch_too_small")));
  EXPECT_TRUE(rules.acts_on(underuse("util.low")));
  EXPECT_FALSE(rules.acts_on(underuse("util.input_bound")));
  EXPECT_TRUE(UnderuseRules::parse("*").acts_on(underuse("memory.batch_too_small")));
  EXPECT_TRUE(UnderuseRules::parse("memory.*").acts_on(underuse("memory.batch_too_small")));
}

TEST(UnderuseRules, OnlyUnderuseAdvisoriesAct) {
  Advisory leak = underuse("memory.batch_too_small");
  leak.underuse = false;
  EXPECT_FALSE(UnderuseRules::parse("*").acts_on(leak));
}

TEST(UnderuseRules, RejectsWhatNamesNoUnderuseAdvisory) {
  for (const char* bad : {"", "util.*,", ",util.low", "memory.leak", "util", "util.lo", "balance.*", "thermal.*"}) {
    EXPECT_THROW(UnderuseRules::parse(bad), UnderuseRulesError) << bad;
  }
  try {
    UnderuseRules::parse("memory.leak");
  } catch (const UnderuseRulesError& e) {
    EXPECT_NE(std::string(e.what()).find("util.input_bound"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuwatch
