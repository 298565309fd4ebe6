#include "matrix/slurm.h"

#include <gtest/gtest.h>

namespace gpuwatch::matrix {
namespace {

// A job array of one cell, `command` over a={1}, its matrix in `dir`.
SlurmJob one_cell_job(std::string dir, std::vector<std::string> command = {"x", "{a}"}) {
  GridSpec spec;
  spec.params = {{"a", {"1"}}};
  spec.command = std::move(command);
  SlurmJob job;
  job.dir = std::move(dir);
  job.exe = "gpuwatch";
  job.job_name = "j";
  job.cells = expand_grid(spec);
  return job;
}

TEST(MatrixSlurm, QuotesShellWords) {
  EXPECT_EQ(shell_quote("plain-word_1.5/x=y,z"), "plain-word_1.5/x=y,z");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("two words"), "'two words'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME and `x` \"q\""), "'$HOME and `x` \"q\"'");
  EXPECT_EQ(shell_quote("{a}"), "'{a}'");
  EXPECT_EQ(shell_command_line({"python", "-c", "print('hi $x')"}), "python -c 'print('\\''hi $x'\\'')'");
}

TEST(MatrixSlurm, WritesAnArrayOfTheCells) {
  GridSpec spec;
  spec.params = {{"opt", {"adam w", "it's"}}, {"bs", {"$1", "{x}"}}};
  spec.command = {"sh", "-c", "echo \"{opt}\" {bs} ${HOME}", "--bs={bs}"};
  SlurmJob job;
  job.dir = "/scratch/my matrix";
  job.exe = "/opt/gpuwatch/bin/gpuwatch";
  job.job_name = "gpuwatch-matrix-m";
  job.gpus_per_cell = 2;
  job.cells = expand_grid(spec);
  const std::string s = render_slurm_script(job);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("#SBATCH --array=0-3\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --gpus-per-task=2\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --job-name=gpuwatch-matrix-m\n"), std::string::npos);
  // A folder with a blank, quoted as sbatch reads #SBATCH lines.
  EXPECT_NE(s.find("#SBATCH --output=\"/scratch/my matrix/slurm-%A_%a.log\"\n"), std::string::npos) << s;
  EXPECT_NE(s.find("DIR='/scratch/my matrix'\n"), std::string::npos);
  EXPECT_NE(s.find("GPUWATCH=${GPUWATCH:-/opt/gpuwatch/bin/gpuwatch}\n"), std::string::npos);
  // The names, one quoted element each, in the grid's order.
  EXPECT_NE(s.find("CELLS=(\n  'opt=adam w,bs=$1'\n  'opt=adam w,bs={x}'\n  'opt=it'\\''s,bs=$1'\n"), std::string::npos) << s;
  // The command line, quoted once as words and again as the element.
  const std::string line = shell_command_line({"sh", "-c", "echo \"it's\" {x} ${HOME}", "--bs={x}"});
  EXPECT_EQ(line, "sh -c 'echo \"it'\\''s\" {x} ${HOME}' '--bs={x}'");
  EXPECT_NE(s.find("  " + shell_quote(line) + "\n"), std::string::npos) << s;
  EXPECT_NE(s.find("exec \"$GPUWATCH\" matrix run-cell \"$DIR\" \"$task\"\n"), std::string::npos);
}

TEST(MatrixSlurm, LogsNextToTheCellsWhenTheFolderAllowsIt) {
  const std::string s = render_slurm_script(one_cell_job("/scratch/m"));
  EXPECT_NE(s.find("#SBATCH --array=0-0\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --output=\"/scratch/m/slurm-%A_%a.log\"\n"), std::string::npos);
  EXPECT_EQ(s.find("--gpus-per-task"), std::string::npos);
  EXPECT_EQ(s.find("WORKDIR="), std::string::npos);  // no workdir: where the task starts
}

// sbatch reads an #SBATCH value in quotes (blanks, `#`, `'` literal inside),
// takes a backslash as an escape anywhere, and Slurm's --output has `%`
// patterns: found on a real Slurm 22.05 (tests/slurm), where an unquoted `#`
// cut the log's path and a blank left it at Slurm's default.
TEST(MatrixSlurm, QuotesValuesAsSbatchReadsThem) {
  EXPECT_EQ(sbatch_quote("/a b/it's #1"), "\"/a b/it's #1\"");
  EXPECT_EQ(sbatch_quote("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(sbatch_quote("a\\b"), std::nullopt);
  EXPECT_EQ(sbatch_quote("a\nb"), std::nullopt);
  EXPECT_EQ(sbatch_log_path("/runs/100% x"), "\"/runs/100%% x/slurm-%A_%a.log\"");
  EXPECT_EQ(sbatch_log_path("/runs/a\\b"), std::nullopt);
  // Slurm's default log then.
  EXPECT_EQ(render_slurm_script(one_cell_job("/runs/m\\1")).find("#SBATCH --output"), std::string::npos);
}

// The cells run where `matrix --slurm` ran, as a local matrix's do, not in
// the folder sbatch ran in (Slurm's default working folder).
TEST(MatrixSlurm, TasksRunTheirCellsWhereTheMatrixWasWritten) {
  SlurmJob job = one_cell_job("/runs/m", {"python", "train.py", "{a}"});
  job.workdir = "/home/me/my project";
  const std::string s = render_slurm_script(job);
  const auto cd = s.find("WORKDIR='/home/me/my project'\nif ! cd \"$WORKDIR\"; then\n");
  EXPECT_NE(cd, std::string::npos) << s;
  EXPECT_LT(s.find("task=$(( FIRST + i ))\n"), cd);  // its message names the task
  EXPECT_LT(cd, s.find("exec \"$GPUWATCH\" matrix run-cell"));
  EXPECT_NE(s.find("cannot enter $WORKDIR, where the matrix was written"), std::string::npos);
}


TEST(MatrixSlurm, SplitsCellsIntoArraysSlurmAccepts) {
  using Arrays = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(slurm_arrays(4, kSlurmDefaultMaxArraySize), (Arrays{{0, 4}}));
  EXPECT_EQ(slurm_arrays(1001, 1001), (Arrays{{0, 1001}}));
  EXPECT_EQ(slurm_arrays(2500, 1001), (Arrays{{0, 1001}, {1001, 1001}, {2002, 498}}));
  EXPECT_EQ(slurm_arrays(3, 1), (Arrays{{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(slurm_arrays(0, 1001), Arrays{});
}

TEST(MatrixSlurm, ALaterArrayRunsItsCellsByOffset) {
  GridSpec spec;
  spec.params = {{"a", {"1", "2", "3"}}};
  spec.command = {"x", "{a}"};
  const GridPlan plan(spec);
  SlurmJob job;
  job.dir = "/scratch/m";
  job.exe = "gpuwatch";
  job.job_name = "j";
  job.first_cell = 2;
  job.cells = {plan.cell(2)};
  const std::string s = render_slurm_script(job);
  EXPECT_NE(s.find("#SBATCH --array=0-0\n"), std::string::npos) << s;  // indices below MaxArraySize
  EXPECT_NE(s.find("FIRST=2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("CELLS=(\n  a=3\n)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("task=$(( FIRST + i ))\n"), std::string::npos) << s;
}

}  // namespace
}  // namespace gpuwatch::matrix
