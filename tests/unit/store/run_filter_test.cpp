#include "store/run_filter.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kNow = 1'800'000'000 * kS;

RunInfo run(std::string name, std::int64_t start, std::optional<std::int64_t> end = std::nullopt,
            RunStatus status = RunStatus::Finished) {
  RunInfo r;
  r.id = name + "-id";
  r.name = std::move(name);
  r.start_wall_ns = start;
  r.end_wall_ns = end;
  r.heartbeat_wall_ns = end.value_or(start);
  r.status = status;
  return r;
}

TEST(ParseDuration, UnitsAndSums) {
  EXPECT_EQ(parse_duration_ns("90"), 90 * kS);
  EXPECT_EQ(parse_duration_ns("90s"), 90 * kS);
  EXPECT_EQ(parse_duration_ns("15m"), 900 * kS);
  EXPECT_EQ(parse_duration_ns("2h"), 7200 * kS);
  EXPECT_EQ(parse_duration_ns("30d"), 30 * 86400 * kS);
  EXPECT_EQ(parse_duration_ns("2w"), 14 * 86400 * kS);
  EXPECT_EQ(parse_duration_ns("1.5h"), 5400 * kS);
  EXPECT_EQ(parse_duration_ns("1h30m"), 5400 * kS);
}

TEST(ParseDuration, RefusesNonsense) {
  for (const char* bad : {"", "0", "-1d", "+1d", "d", "1x", "1h30", "1e3s", "nan", "inf", "99999999999999d", " 1d",
                          "1d ", "1..5h"}) {
    EXPECT_EQ(parse_duration_ns(bad), std::nullopt) << bad;
  }
}

TEST(ParseTimeBound, DurationsAgoOrDates) {
  EXPECT_EQ(parse_time_bound_ns("2h", kNow), kNow - 7200 * kS);
  EXPECT_EQ(parse_time_bound_ns("2026-11-01T00:00:00Z", kNow), 1'793'491'200 * kS);
  EXPECT_TRUE(parse_time_bound_ns("2026-11-01", kNow).has_value());
  EXPECT_EQ(parse_time_bound_ns("yesterday", kNow), std::nullopt);
  EXPECT_EQ(parse_time_bound_ns("2026-13-01", kNow), std::nullopt);
}

RunFilter by(std::string name, std::optional<std::int64_t> since = std::nullopt,
             std::optional<std::size_t> limit = std::nullopt) {
  RunFilter f;
  f.name = std::move(name);
  f.since_wall_ns = since;
  f.limit = limit;
  return f;
}

TEST(FilterRuns, ByNameGlobSinceAndLimit) {
  const std::vector<RunInfo> runs{run("bert-base", 100 * kS), run("train", 200 * kS), run("bert-large", 300 * kS),
                                  run("bert-*", 400 * kS)};
  const auto names = [](const std::vector<RunInfo>& rs) {
    std::vector<std::string> out;
    for (const RunInfo& r : rs) out.push_back(r.name);
    return out;
  };
  EXPECT_EQ(names(filter_runs(runs, {})), (std::vector<std::string>{"bert-base", "train", "bert-large", "bert-*"}));
  EXPECT_EQ(names(filter_runs(runs, by("train"))), std::vector<std::string>{"train"});
  EXPECT_EQ(names(filter_runs(runs, by("bert-*"))),
            (std::vector<std::string>{"bert-base", "bert-large", "bert-*"}));
  EXPECT_EQ(names(filter_runs(runs, by("", 200 * kS))),
            (std::vector<std::string>{"train", "bert-large", "bert-*"}));
  EXPECT_EQ(names(filter_runs(runs, by("bert-*", std::nullopt, 2))),
            (std::vector<std::string>{"bert-large", "bert-*"}));  // the newest two, oldest first
  EXPECT_EQ(names(filter_runs(runs, by("", std::nullopt, 10))).size(), 4u);
}

TEST(FilterRuns, ByJob) {
  std::vector<RunInfo> runs{run("a", 100 * kS), run("b", 200 * kS), run("c", 300 * kS)};
  runs[0].job.id = "77";
  runs[2].job.id = "77";
  runs[1].job.id = "770";
  RunFilter f;
  f.job = "77";
  const auto shown = filter_runs(runs, f);
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[0].name, "a");
  EXPECT_EQ(shown[1].name, "c");
}

// sbatch prints the array's id; squeue, sacct and scancel take it for every
// task of the array, and so do `runs --job` and `report --job`.
TEST(FilterRuns, BySlurmArrayJob) {
  std::vector<RunInfo> runs{run("t0", 100 * kS), run("t1", 200 * kS), run("other", 300 * kS), run("flag", 400 * kS)};
  for (RunInfo& r : runs) r.job.source = "slurm";
  runs[0].job.id = "77_0";
  runs[1].job.id = "77_1";
  runs[2].job.id = "770_1";
  runs[3].job.id = "77_2";
  runs[3].job.source = "flag";  // an id given by hand is only itself
  const auto names = [&](const std::string& job) {
    RunFilter f;
    f.job = job;
    std::vector<std::string> out;
    for (const RunInfo& r : filter_runs(runs, f)) out.push_back(r.name);
    return out;
  };
  EXPECT_EQ(names("77"), (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(names("77_1"), (std::vector<std::string>{"t1"}));
  EXPECT_EQ(names("77_2"), (std::vector<std::string>{"flag"}));
  EXPECT_TRUE(names("77_").empty());
  EXPECT_TRUE(names("7").empty());
}

TEST(RunsToPrune, OldAndNeverLive) {
  const std::int64_t cutoff = kNow - 30 * 86400 * kS;
  const std::vector<RunInfo> runs{
      run("old", cutoff - 10 * kS, cutoff - 5 * kS),
      run("ended-after-cutoff", cutoff - 100 * kS, cutoff + kS),
      run("new", kNow - kS, kNow),
      run("old-but-live", cutoff - 100 * kS, std::nullopt, RunStatus::Recording),
      run("interrupted-old", cutoff - 100 * kS, std::nullopt, RunStatus::Interrupted),
  };
  std::vector<std::string> names;
  for (const RunInfo& r : runs_to_prune(runs, cutoff)) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"old", "interrupted-old"}));
}

}  // namespace
}  // namespace gpuwatch
