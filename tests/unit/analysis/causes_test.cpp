#include "analysis/advisor/causes.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Advisory advisory(std::string id, std::optional<int> gpu, Severity severity = Severity::Warning) {
  Advisory a;
  a.id = std::move(id);
  a.device_index = gpu;
  a.severity = severity;
  a.suggestion = "Try about 2x the batch size.";
  return a;
}

// Issue 23: a starved DataLoader's run was headed memory.batch_too_small.
TEST(Causes, AWaitForInputExplainsTheSmallBatchOnItsGpu) {
  std::vector<Advisory> list{advisory("memory.batch_too_small", 0), advisory("memory.batch_too_small", 1),
                             advisory("util.input_bound", 0)};
  relate_causes(list);
  EXPECT_EQ(list[0].explained_by, (AdvisoryRef{"util.input_bound", 0}));
  EXPECT_EQ(list[0].severity, Severity::Info);
  EXPECT_EQ(list[0].suggestion, "Once the input keeps up: Try about 2x the batch size.");
  EXPECT_EQ(list[0].action, "raise_batch");
  EXPECT_FALSE(list[1].explained_by);  // GPU 1 does not wait: its advice stands
  EXPECT_EQ(list[1].severity, Severity::Warning);
  ASSERT_EQ(list[2].explains.size(), 1U);
  EXPECT_EQ(to_string(list[2].explains[0]), "memory.batch_too_small GPU 0");
  EXPECT_EQ(list[2].action, "feed_faster");
}

TEST(Causes, ACauseAboutTheWholeRunExplainsEveryGpu) {
  std::vector<Advisory> list{advisory("util.host_bound", std::nullopt), advisory("memory.batch_could_grow", 0),
                             advisory("memory.batch_could_grow", 3)};
  relate_causes(list);
  EXPECT_EQ(list[0].explains.size(), 2U);
  EXPECT_TRUE(list[1].explained_by && list[2].explained_by);
  EXPECT_EQ(to_string(*list[2].explained_by), "util.host_bound");
}

TEST(Causes, UnrelatedAdvisoriesStandAlone) {
  std::vector<Advisory> list{advisory("throttle.thermal", 1), advisory("balance.straggler", 2),
                             advisory("memory.leak", 0, Severity::Critical), advisory("util.tensor_idle", 0)};
  relate_causes(list);
  for (const Advisory& a : list) {
    EXPECT_FALSE(a.explained_by) << a.id;
    EXPECT_TRUE(a.explains.empty()) << a.id;
  }
  EXPECT_EQ(list[1].action, "fix_straggler");
  EXPECT_EQ(next_action("no.such"), "watch");
  // The same GPU: heat explains the straggler.
  list.push_back(advisory("balance.straggler", 1));
  relate_causes(list);
  EXPECT_EQ(list.back().explained_by, (AdvisoryRef{"throttle.thermal", 1}));
}

// Issue 23: heat on GPU 3 -> a straggler -> the other ranks' waits.
TEST(Causes, AStragglerExplainsTheWaitsOnTheOtherGpusEvenWithACauseOfItsOwn) {
  std::vector<Advisory> list{advisory("util.collective_wait", 0), advisory("util.collective_wait", 1),
                             advisory("balance.straggler", 3), advisory("throttle.thermal", 3)};
  relate_causes(list);
  EXPECT_EQ(list[2].explained_by, (AdvisoryRef{"throttle.thermal", 3}));
  EXPECT_EQ(list[0].explained_by, (AdvisoryRef{"balance.straggler", 3}));
  EXPECT_EQ(list[1].explained_by, (AdvisoryRef{"balance.straggler", 3}));
  EXPECT_EQ(list[0].action, "find_straggler");
  EXPECT_EQ(list[2].explains.size(), 2U);
}

// A rank starved of data is the straggler: its input explains it, the
// straggler the others' waits, and it the imbalance.
TEST(Causes, AStarvedRankExplainsTheStragglerAndItTheWaitsAndTheImbalance) {
  std::vector<Advisory> list{advisory("util.collective_wait", 0), advisory("balance.straggler", 1),
                             advisory("util.input_bound", 1), advisory("balance.imbalance", std::nullopt),
                             advisory("memory.batch_too_small", 0)};
  relate_causes(list);
  EXPECT_EQ(list[4].explained_by, (AdvisoryRef{"balance.straggler", 1}));  // the waiting GPU's batch
  EXPECT_EQ(list[4].suggestion, "Once the rank this GPU waits for keeps up: Try about 2x the batch size.");
  EXPECT_EQ(list[1].explained_by, (AdvisoryRef{"util.input_bound", 1}));
  EXPECT_EQ(list[1].suggestion, "Once its input keeps up: Try about 2x the batch size.");
  EXPECT_EQ(list[0].explained_by, (AdvisoryRef{"balance.straggler", 1}));
  EXPECT_EQ(list[3].explained_by, (AdvisoryRef{"balance.straggler", 1}));
  EXPECT_FALSE(list[2].explained_by);
}

// A hang explains everything after it, ahead of any other cause.
TEST(Causes, AHangExplainsEveryGpusAdvisories) {
  std::vector<Advisory> list{advisory("util.collective_wait", 0), advisory("balance.straggler", 1),
                             advisory("util.input_bound", 1), advisory("memory.batch_too_small", 1),
                             advisory("job.hung", std::nullopt, Severity::Critical)};
  relate_causes(list);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(list[i].explained_by, (AdvisoryRef{"job.hung", std::nullopt})) << list[i].id;
    EXPECT_EQ(list[i].severity, Severity::Info) << list[i].id;
  }
  EXPECT_EQ(list[4].action, "restart_hung_job");
  EXPECT_EQ(list[4].severity, Severity::Critical);
  EXPECT_EQ(list[0].suggestion, "Once the job runs again: Try about 2x the batch size.");
}

}  // namespace
}  // namespace gpuwatch
