#include "analysis/run_group.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "run_data_util.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;


RunData run(const std::string& name, const std::string& id, std::int64_t start_s, double util, double mem_gib) {
  RunData d = make_run(name, id, start_s);
  set_device(d, 0, DeviceMetric::GpuUtilPercent, constant(11, util));
  set_device(d, 0, DeviceMetric::MemUsedBytes, constant(11, mem_gib * kGiB));
  d.run.end_wall_ns = d.run.start_wall_ns + 10 * kSec;
  return d;
}

std::size_t col(GroupColumn c) { return static_cast<std::size_t>(c); }

TEST(RunGroup, EveryRunIsARowOldestFirst) {
  const std::vector<RunData> runs{run("b", "000000000002", 200, 50, 2), run("a", "000000000001", 100, 90, 4),
                                  run("b", "000000000003", 300, 70, 3)};
  const RunGroup g = build_completed_run_group(runs, "named '*'");
  ASSERT_EQ(g.rows.size(), 3u);
  EXPECT_EQ(g.rows[0].run.id, "000000000001");
  EXPECT_EQ(g.rows[1].run.id, "000000000002");
  EXPECT_EQ(g.rows[2].run.id, "000000000003");
  EXPECT_DOUBLE_EQ(*g.rows[0].values[col(GroupColumn::GpuUtilPercent)], 90);
  EXPECT_DOUBLE_EQ(*g.rows[0].values[col(GroupColumn::DurationS)], 10);
  EXPECT_DOUBLE_EQ(*g.rows[1].values[col(GroupColumn::MemUsedPeak)], 2 * kGiB);
  EXPECT_FALSE(g.rows[0].values[col(GroupColumn::PowerWatts)]);  // never sampled: absent, not 0
}

TEST(RunGroup, LowestAndHighestAreNamed) {
  const std::vector<RunData> runs{run("b", "000000000002", 200, 50, 2), run("a", "000000000001", 100, 90, 4),
                                  run("b", "000000000003", 300, 70, 3)};
  const RunGroup g = build_completed_run_group(runs, "x");
  const auto util = std::find_if(g.extremes.begin(), g.extremes.end(),
                                 [](const GroupExtremes& e) { return e.column == GroupColumn::GpuUtilPercent; });
  ASSERT_NE(util, g.extremes.end());
  EXPECT_EQ(g.rows[util->lowest].run.id, "000000000002");
  EXPECT_EQ(g.rows[util->highest].run.id, "000000000001");
  EXPECT_EQ(info(GroupColumn::GpuUtilPercent).better, Better::Higher);
  EXPECT_EQ(info(GroupColumn::MemUsedMean).better, Better::Lower);
  // No power in any run: no extremes for it.
  EXPECT_TRUE(std::none_of(g.extremes.begin(), g.extremes.end(),
                           [](const GroupExtremes& e) { return e.column == GroupColumn::PowerWatts; }));
}

TEST(RunGroup, RepeatsAreAveragedWithTheirSpreadNotTheirBest) {
  const std::vector<RunData> runs{run("b", "000000000002", 200, 50, 2), run("a", "000000000001", 100, 90, 4),
                                  run("b", "000000000003", 300, 70, 3), run("", "000000000004", 400, 10, 1),
                                  run("", "000000000005", 500, 10, 1)};
  const RunGroup g = build_completed_run_group(runs, "x");
  ASSERT_EQ(g.repeats.size(), 1u);  // "a" ran once; unnamed runs are no configuration
  const Configuration& b = g.repeats[0];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.rows, (std::vector<std::size_t>{1, 2}));
  const Spread& util = *b.values[col(GroupColumn::GpuUtilPercent)];
  EXPECT_EQ(util.n, 2u);
  EXPECT_DOUBLE_EQ(util.mean, 60);
  EXPECT_DOUBLE_EQ(util.min, 50);
  EXPECT_DOUBLE_EQ(util.max, 70);
  EXPECT_DOUBLE_EQ(util.std, std::sqrt(200.0));  // sample std of {50, 70}
  EXPECT_EQ(g.rows.size(), 5u);                  // and every run is still a row
}

// Issue 22 item 16: after an interrupted and resumed matrix, a killed cell
// (1.0 s) was averaged with its good repeat (6.3 s) into 3.6 ± 3.7 s.
TEST(RunGroup, RunsThatDidNotCompleteAreLeftOutAndNamed) {
  std::vector<RunData> runs{run("lr=3e-4,seed=1", "000000000001", 100, 80, 2),
                            run("lr=3e-4,seed=1", "000000000002", 200, 20, 2),
                            run("lr=3e-4,seed=1", "000000000003", 300, 82, 2),
                            run("lr=3e-4,seed=1", "000000000004", 400, 10, 2),
                            run("lr=3e-4,seed=1", "000000000005", 500, 10, 2),
                            run("lr=3e-4,seed=1", "000000000006", 600, 10, 2)};
  runs[1].run.exit_code.reset();
  runs[1].run.exit_signal = 2;                      // SIGINT from the interrupted matrix
  runs[3].run.status = RunStatus::Interrupted;      // the recorder was killed
  runs[4].run.exit_code = 130;                      // Python's KeyboardInterrupt
  runs[5].run.end_reason = "underuse";              // --on-underuse kill
  const RunGroup g = build_completed_run_group(runs, "x");
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[0].run.id, "000000000001");
  EXPECT_EQ(g.rows[1].run.id, "000000000003");
  ASSERT_EQ(g.left_out.size(), 4u);
  EXPECT_EQ(g.left_out[0].id, "000000000002");
  EXPECT_EQ(g.left_out[3].id, "000000000006");
  ASSERT_EQ(g.repeats.size(), 1u);
  const Spread& util = *g.repeats[0].values[col(GroupColumn::GpuUtilPercent)];
  EXPECT_EQ(util.n, 2u);
  EXPECT_DOUBLE_EQ(util.mean, 81);

  // A run without a command (record until Ctrl-C, an imported file) completes.
  RunInfo attached;
  attached.status = RunStatus::Finished;
  EXPECT_TRUE(run_completed(attached));
  attached.end_reason = "imported";
  EXPECT_TRUE(run_completed(attached));
  // The matrix's own summary passes its cells' values as they are.
  std::vector<GroupRow> cells(2);
  cells[0].run.name = cells[1].run.name = "c";
  EXPECT_EQ(build_run_group(std::move(cells), "c").repeats.size(), 1u);
}

}  // namespace
}  // namespace gpuwatch
