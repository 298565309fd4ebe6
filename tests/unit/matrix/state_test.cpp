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
  // Labels, units and decimals are the catalogue's (core/derived_metrics.h), as report --group shows them.
  EXPECT_NE(text.find("  GPU utilization %      50.0 ±14.1 (40.0-60.0)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  GPU utilization %      70.0\n"), std::string::npos) << text;
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


TEST(MatrixState, TimedOutCellsAndWhatTheyLeftRoundTrip) {
  CellResult c = cell("a=1", 1, CellState::TimedOut, "0123456789ab", 2.5);
  c.exit_status = 137;
  c.failure = "timed out after 2s (--cell-timeout): stopped with SIGTERM, SIGKILL 1s later, exit status 137";
  c.leftovers = {{4242, "sleep", "session", "SIGTERM"}, {4250, "sleep", "environment", "SIGKILL"},
                 {4260, "stuck", "session", ""}};
  c.gpu_processes_after = {{1, 900001, ""}, {1, 5150, "python3"}};
  const std::string text = render_cell_json(c);
  EXPECT_NE(text.find("\"state\": \"timed_out\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"ended_by\": null"), std::string::npos) << text;
  const auto back = parse_cell_json(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->state, CellState::TimedOut);
  ASSERT_EQ(back->leftovers.size(), 3u);
  EXPECT_EQ(back->leftovers[1].pid, 4250u);
  EXPECT_EQ(back->leftovers[1].found_by, "environment");
  EXPECT_EQ(back->leftovers[1].ended_by, "SIGKILL");
  EXPECT_EQ(back->leftovers[2].ended_by, "");
  ASSERT_EQ(back->gpu_processes_after.size(), 2u);
  EXPECT_EQ(back->gpu_processes_after[1].gpu, 1);
  EXPECT_EQ(back->gpu_processes_after[1].name, "python3");

  const std::vector<CellResult> cells = {c, cell("a=2", 1, CellState::Done, "r2", 1)};
  const MatrixSummary s = build_summary(cells, {});
  ASSERT_EQ(s.left_behind.size(), 1u);
  const std::string summary = render_summary_text(s);
  EXPECT_NE(summary.find("timed_out    a=1,rep=1: timed out after 2s"), std::string::npos) << summary;
  EXPECT_NE(summary.find("a=1,rep=1: 4242 sleep (its session, SIGTERM), 4250 sleep (left its session, found by its "
                         "environment, SIGKILL), 4260 stuck (its session, still running: could not be ended)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("not provably theirs (left running):\n  a=1,rep=1: GPU 1: 900001 (not visible here), "
                         "GPU 1: 5150 python3"),
            std::string::npos)
      << summary;
  EXPECT_NE(render_summary_json(s).find("\"left_behind\""), std::string::npos);
  const Progress p = compute_progress(cells, 0, 1);
  EXPECT_EQ(p.timed_out, 1u);
  EXPECT_EQ(render_progress_line(p), "matrix: 1/2 done, 0 running, 0 left, 1 timed out");
}

TEST(MatrixState, StopSettingsRoundTripInMatrixJson) {
  MatrixDef def;
  def.grid.params = {{"a", {"1"}}};
  def.grid.command = {"x", "{a}"};
  EXPECT_FALSE(parse_matrix_json(render_matrix_json(def)).cell_timeout_s);
  EXPECT_DOUBLE_EQ(parse_matrix_json(render_matrix_json(def)).stop_grace_s, 10.0);
  def.cell_timeout_s = 90;
  def.stop_grace_s = 2.5;
  const MatrixDef back = parse_matrix_json(render_matrix_json(def));
  EXPECT_EQ(back.cell_timeout_s, 90.0);
  EXPECT_DOUBLE_EQ(back.stop_grace_s, 2.5);
}

}  // namespace
}  // namespace gpuwatch::matrix
