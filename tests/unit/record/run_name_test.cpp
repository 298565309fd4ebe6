#include "record/run_name.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

using Argv = std::vector<std::string>;

TEST(DefaultRunName, ScriptsNotInterpreters) {
  EXPECT_EQ(default_run_name({"python3", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"/usr/bin/python3.11", "-u", "scripts/train.py", "--lr", "3e-4"}), "train");
  EXPECT_EQ(default_run_name({"python", "-X", "dev", "-W", "ignore", "finetune.py"}), "finetune");
  EXPECT_EQ(default_run_name({"bash", "run.sh"}), "run");
  EXPECT_EQ(default_run_name({"bash", "-x", "-e", "jobs/run.sh", "a"}), "run");
  EXPECT_EQ(default_run_name({"./train.py"}), "train");
  EXPECT_EQ(default_run_name({"sleep", "1"}), "sleep");
  EXPECT_EQ(default_run_name({"/usr/local/bin/my-tool"}), "my-tool");
}

TEST(DefaultRunName, ModulesAndTheScriptsLaunchersRun) {
  EXPECT_EQ(default_run_name({"python", "-m", "mymod.sub", "--x"}), "mymod.sub");
  EXPECT_EQ(default_run_name({"python", "-mmymod"}), "mymod");
  EXPECT_EQ(default_run_name({"python", "-m", "torch.distributed.run", "--nproc_per_node", "8", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"python", "-m", "torch.distributed.launch", "--nproc_per_node=8", "--use_env",
                              "train.py"}),
            "train");
  EXPECT_EQ(default_run_name({"torchrun", "--nnodes", "2", "--nproc_per_node", "8", "--rdzv_endpoint", "host:29500",
                              "pretrain.py", "--config", "a.yaml"}),
            "pretrain");
  EXPECT_EQ(default_run_name({"torchrun", "--standalone", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"torchrun", "--nproc_per_node", "2", "-m", "pkg.train"}), "pkg.train");
  EXPECT_EQ(default_run_name({"accelerate", "launch", "--multi_gpu", "--num_processes", "4", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"deepspeed", "--num_gpus", "8", "train.py", "--deepspeed", "ds.json"}), "train");
  EXPECT_EQ(default_run_name({"mpirun", "-np", "4", "python", "train.py"}), "train");
}

TEST(DefaultRunName, LooksThroughEnvironmentAndWrappers) {
  EXPECT_EQ(default_run_name({"env", "A=1", "CUDA_VISIBLE_DEVICES=0", "python", "x.py"}), "x");
  EXPECT_EQ(default_run_name({"env", "-u", "HOME", "-i", "python3", "eval.py"}), "eval");
  EXPECT_EQ(default_run_name({"uv", "run", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"uv", "run", "--with", "torch", "python", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"poetry", "run", "python", "-m", "app.main"}), "app.main");
  EXPECT_EQ(default_run_name({"conda", "run", "-n", "ml", "python", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"nohup", "nice", "-n", "10", "python", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"timeout", "-s", "INT", "1h", "python", "train.py"}), "train");
  EXPECT_EQ(default_run_name({"numactl", "--cpunodebind=0", "python", "train.py"}), "train");
}

TEST(DefaultRunName, FallsBackToTheProgram) {
  EXPECT_EQ(default_run_name({}), "");
  EXPECT_EQ(default_run_name({"python3"}), "python3");
  EXPECT_EQ(default_run_name({"python3", "-c", "print(1)"}), "python3");
  EXPECT_EQ(default_run_name({"bash", "-c", "sleep 1"}), "bash");
  EXPECT_EQ(default_run_name({"torchrun"}), "torchrun");
  EXPECT_EQ(default_run_name({"env"}), "env");
  EXPECT_EQ(default_run_name({"uv", "sync"}), "uv");
  EXPECT_EQ(default_run_name({"python", "训练.py"}), "训练");  // UTF-8 names are kept
  const std::string long_name(100, 'a');
  EXPECT_EQ(default_run_name({long_name}).size(), 64u);
  // Cut at a character boundary: 3-byte characters, 64 is not a multiple of 3.
  std::string cjk;
  for (int i = 0; i < 30; ++i) cjk += "训";
  EXPECT_EQ(default_run_name({cjk}).size(), 63u);
}

}  // namespace
}  // namespace gpuwatch
