#include "matrix/state.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "matrix/progress.h"
#include "matrix/summary.h"

namespace gpuwatch::matrix {
namespace {

CellResult cell(std::string config, int rep, CellState state, std::string run_id, double duration) {
  CellResult c;
  c.config = config;
  c.name = fmt::format("{},rep={}", config, rep);
  c.rep = rep;
  c.values = {{"a", config.substr(2)}};
  c.state = state;
  c.run_id = std::move(run_id);
  c.duration_s = duration;
  c.exit_status = state == CellState::Done ? 0 : 3;
  return c;
}

TEST(MatrixState, MatrixJsonRoundTrips) {
  MatrixDef def;
  def.grid.params = {{"a", {"1", "2"}}, {"b", {"x\"y"}}};
  def.grid.repeat = 2;
  def.grid.command = {"sh", "-c", "echo {a} {b}"};
  def.parallel = 2;
  def.gpus_per_cell = 1;
  def.interval_s = 0.25;
  def.store = "/tmp/s.db";
  const std::string text = render_matrix_json(def);
  EXPECT_NE(text.find("\"schema_version\": 1"), std::string::npos) << text;
  const MatrixDef back = parse_matrix_json(text);
  EXPECT_EQ(back.grid.params.size(), 2u);
  EXPECT_EQ(back.grid.params[1].values, std::vector<std::string>{"x\"y"});
  EXPECT_EQ(back.grid.repeat, 2);
  EXPECT_EQ(back.grid.command, def.grid.command);
  EXPECT_EQ(back.parallel, 2);
  EXPECT_EQ(back.gpus_per_cell, 1);
  EXPECT_DOUBLE_EQ(back.interval_s, 0.25);
  EXPECT_EQ(back.store, "/tmp/s.db");
  EXPECT_THROW(parse_matrix_json("[1]"), std::runtime_error);
  EXPECT_THROW(parse_matrix_json("{\"params\": []}"), std::runtime_error);  // no schema_version
}

TEST(MatrixState, CellJsonRoundTrips) {
  CellResult c = cell("a=1", 2, CellState::Failed, "0123456789ab", 1.5);
  c.gpus = {1, 3};
  c.start_unix_s = 1795811686.25;
  c.end_unix_s = 1795811687.75;
  c.failure = "exit status 3";
  const auto back = parse_cell_json(render_cell_json(c));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->name, c.name);
  EXPECT_EQ(back->state, CellState::Failed);
  EXPECT_EQ(back->run_id, "0123456789ab");
  EXPECT_EQ(back->gpus, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(back->start_unix_s, c.start_unix_s);
  EXPECT_EQ(back->exit_status, 3);
  EXPECT_EQ(back->values, c.values);
  EXPECT_FALSE(parse_cell_json("not json"));
  EXPECT_FALSE(parse_cell_json("{}"));
  EXPECT_EQ(utc_iso8601(0), "1970-01-01T00:00:00Z");
}

TEST(MatrixSummary, AveragesRepeatsWithTheirSpreadAndListsFailures) {
  const std::vector<CellResult> cells = {
      cell("a=1", 1, CellState::Done, "r1", 10), cell("a=1", 2, CellState::Done, "r2", 12),
      cell("a=2", 1, CellState::Done, "r3", 11), cell("a=2", 2, CellState::Failed, "r4", 1),
      cell("a=3", 1, CellState::Interrupted, "", 2), cell("a=3", 2, CellState::Pending, "", 0)};
  std::map<std::string, GroupValues> runs;
  const auto util = static_cast<std::size_t>(GroupColumn::GpuUtilPercent);
  runs["r1"][util] = 40;
  runs["r2"][util] = 60;
  runs["r3"][util] = 70;
  runs["r4"][util] = 1;  // failed: not averaged in
  const MatrixSummary s = build_summary(cells, runs);
  ASSERT_EQ(s.configs.size(), 3u);
  const auto& a1 = s.configs[0].columns[util];
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->n, 2u);
  EXPECT_DOUBLE_EQ(a1->mean, 50);
  EXPECT_DOUBLE_EQ(a1->min, 40);
  EXPECT_DOUBLE_EQ(a1->max, 60);
  EXPECT_NEAR(a1->std, 14.142, 0.001);
  const auto& a2 = s.configs[1].columns[util];
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->n, 1u);
  EXPECT_DOUBLE_EQ(a2->mean, 70);
  EXPECT_EQ(s.configs[1].succeeded, 1u);
  EXPECT_FALSE(s.configs[2].columns[util]);
  ASSERT_EQ(s.unsuccessful.size(), 3u);
  const std::string text = render_summary_text(s);
  EXPECT_NE(text.find("3 cells did not succeed"), std::string::npos) << text;
  const std::string json = render_summary_json(s);
  EXPECT_NE(json.find("\"schema_version\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"unsuccessful\""), std::string::npos);
}

TEST(MatrixProgress, CountsAndEta) {
  std::vector<CellResult> cells = {cell("a=1", 1, CellState::Done, "r1", 10), cell("a=1", 2, CellState::Failed, "r2", 20),
                                   cell("a=2", 1, CellState::Running, "", 0), cell("a=2", 2, CellState::Pending, "", 0)};
  cells[2].duration_s.reset();
  cells[2].start_unix_s = 100;
  const Progress p = compute_progress(cells, 105, 1);
  EXPECT_EQ(p.done, 1u);
  EXPECT_EQ(p.failed, 1u);
  EXPECT_EQ(p.running, 1u);
  EXPECT_EQ(p.pending, 1u);
  ASSERT_TRUE(p.eta_s);
  EXPECT_DOUBLE_EQ(*p.eta_s, 25);  // mean 15: 10 left of the running one, 15 for the last
  EXPECT_EQ(render_progress_line(p), "matrix: 1/4 done, 1 running, 1 left, 1 failed, ETA 25s");
}

}  // namespace
}  // namespace gpuwatch::matrix
