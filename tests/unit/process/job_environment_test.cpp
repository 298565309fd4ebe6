#include "process/job_environment.h"

#include <gtest/gtest.h>

#include <map>

#include "render/job.h"

namespace gpuwatch {
namespace {

JobInfo job_of(const std::map<std::string, std::string>& vars) {
  return job_from_environment([&vars](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional(it->second);
  });
}

TEST(JobEnvironment, NoVariablesIsNoJob) {
  EXPECT_TRUE(job_of({}).empty());
  EXPECT_EQ(describe_job(job_of({})), "");
}

TEST(JobEnvironment, SlurmJobWithItsRanks) {
  const JobInfo j = job_of({{"SLURM_JOB_ID", "77"}, {"SLURM_PROCID", "3"}, {"SLURM_LOCALID", "1"},
                            {"SLURM_NTASKS", "8"}, {"SLURM_NODEID", "1"}, {"SLURM_JOB_NUM_NODES", "4"}});
  EXPECT_EQ(j.id, "77");
  EXPECT_EQ(j.source, "slurm");
  EXPECT_EQ(j.rank, 3);
  EXPECT_EQ(j.local_rank, 1);
  EXPECT_EQ(j.world_size, 8);
  EXPECT_EQ(j.node_rank, 1);
  EXPECT_EQ(j.node_count, 4);
  EXPECT_EQ(describe_job(j), "77 (slurm): rank 3 of 8, local rank 1, node 1 of 4");
}

TEST(JobEnvironment, ASlurmArrayTaskIsNamedAsSqueueNamesIt) {
  const JobInfo j = job_of({{"SLURM_JOB_ID", "1240"}, {"SLURM_ARRAY_JOB_ID", "1234"}, {"SLURM_ARRAY_TASK_ID", "6"}});
  EXPECT_EQ(j.id, "1234_6");
  // Without the task id the job's own id stands.
  EXPECT_EQ(job_of({{"SLURM_JOB_ID", "1240"}, {"SLURM_ARRAY_JOB_ID", "1234"}}).id, "1240");
}

TEST(JobEnvironment, TorchelasticComesFirstAndTorchRanksOverSlurms) {
  const JobInfo j = job_of({{"TORCHELASTIC_RUN_ID", "bert-xl"}, {"SLURM_JOB_ID", "77"}, {"RANK", "9"},
                            {"SLURM_PROCID", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "16"},
                            {"GROUP_RANK", "1"}, {"SLURM_NODEID", "0"}});
  EXPECT_EQ(j.id, "bert-xl");
  EXPECT_EQ(j.source, "torchelastic");
  EXPECT_EQ(j.rank, 9);
  EXPECT_EQ(j.local_rank, 1);
  EXPECT_EQ(j.world_size, 16);
  EXPECT_EQ(j.node_rank, 1);
  EXPECT_EQ(job_of({{"NODE_RANK", "2"}}).node_rank, 2);  // Lightning's name
}

TEST(JobEnvironment, MalformedValuesAreLeftOut) {
  const JobInfo j = job_of({{"SLURM_JOB_ID", "7\n7"}, {"RANK", "-1"}, {"SLURM_PROCID", "2"}, {"LOCAL_RANK", "x"},
                            {"WORLD_SIZE", "4 "}, {"SLURM_JOB_NUM_NODES", "99999999999"}});
  EXPECT_EQ(j.id, "");
  EXPECT_EQ(j.rank, 2);  // RANK is no rank: Slurm's stands
  EXPECT_EQ(j.local_rank, std::nullopt);
  EXPECT_EQ(j.world_size, std::nullopt);
  EXPECT_EQ(j.node_count, std::nullopt);
  EXPECT_FALSE(j.empty());
  EXPECT_EQ(describe_job(j), "no id: rank 2");
}

TEST(JobEnvironment, JobIdProblems) {
  EXPECT_EQ(job_id_problem("77"), std::nullopt);
  EXPECT_EQ(job_id_problem("my job/1"), std::nullopt);
  EXPECT_TRUE(job_id_problem(""));
  EXPECT_TRUE(job_id_problem(std::string(129, 'a')));
  EXPECT_TRUE(job_id_problem("a\tb"));
}

TEST(JobEnvironment, JsonHasEveryFieldOrNull) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  write_job_field(w, JobInfo{});
  w.end_object();
  EXPECT_EQ(out, R"({"job":null})");
  out.clear();
  JsonWriter w2(out);
  w2.begin_object();
  write_job_field(w2, JobInfo{"77", "slurm", 1, 0, 2, 1, 2});
  w2.end_object();
  EXPECT_EQ(out, R"({"job":{"id":"77","source":"slurm","rank":1,"local_rank":0,"world_size":2,"node_rank":1,)"
                 R"("node_count":2}})");
}

}  // namespace
}  // namespace gpuwatch
