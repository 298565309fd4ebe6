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

namespace gpuwatch {
namespace {

Advisory low_on(int gpu, std::string id = "util.low") {
  Advisory a = underuse(std::move(id));
  a.device_index = gpu;
  return a;
}

std::vector<std::string> ids_of(const std::vector<const Advisory*>& acting) {
  std::vector<std::string> out;
  for (const Advisory* a : acting) out.push_back(a->id + " " + std::to_string(a->device_index.value_or(-1)));
  return out;
}

// Issue 22: the command unseen by the driver (a container), GPU 0 busy with
// it, GPU 1 a neighbour's light load: the neighbour must not stop the job.
TEST(ActingUnderuse, CommandNotSeenActsOnlyWhenEveryCandidateIsLow) {
  const JobGpus unseen{JobGpuSource::CommandNotSeen, {0, 1}};
  const std::vector<Advisory> one_low{low_on(1)};
  EXPECT_TRUE(acting_underuse(one_low, UnderuseRules(), unseen, {0, 1}).empty());
  const std::vector<Advisory> both_low{low_on(1, "memory.batch_too_small"), low_on(0, "util.input_bound"), low_on(1)};
  EXPECT_EQ(ids_of(acting_underuse(both_low, UnderuseRules(), unseen, {0, 1})),
            (std::vector<std::string>{"util.input_bound 0", "util.low 1"}));
  // Unknown, with no GPUs named: the recorded ones are the candidates.
  EXPECT_TRUE(acting_underuse(one_low, UnderuseRules(), JobGpus{}, {0, 1}).empty());
  EXPECT_EQ(acting_underuse(one_low, UnderuseRules(), JobGpus{}, {1}).size(), 1U);
  // An advisory about the job as a whole speaks for every GPU.
  Advisory whole = underuse("util.host_bound");
  whole.device_index.reset();
  EXPECT_EQ(acting_underuse({whole}, UnderuseRules(), unseen, {0, 1}).size(), 1U);
}

TEST(ActingUnderuse, ACommandSeenOnItsGpusActsOnAnyOfThem) {
  const std::vector<Advisory> one_low{low_on(1)};
  EXPECT_EQ(acting_underuse(one_low, UnderuseRules(), JobGpus{JobGpuSource::ProcessTree, {0, 1}}, {0, 1}).size(), 1U);
  EXPECT_EQ(acting_underuse(one_low, UnderuseRules(), JobGpus{JobGpuSource::VisibleDevices, {0, 1}}, {0, 1}).size(), 1U);
  // What --rules does not name never acts.
  EXPECT_TRUE(acting_underuse({low_on(0, "memory.batch_too_small")}, UnderuseRules(),
                              JobGpus{JobGpuSource::ProcessTree, {0}}, {0})
                  .empty());
}

}  // namespace
}  // namespace gpuwatch
