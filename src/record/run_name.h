// The name a run gets when `record` is not given --name: what the command
// runs, not the interpreter or launcher that runs it ("train" for
// `torchrun --nproc_per_node 8 train.py`, not "torchrun").
#pragma once

#include <string>
#include <vector>

namespace gpuwatch {

// Pure: argv in, name out, never empty for a non-empty argv ("" for an
// empty one). Looks through env and its assignments, nohup/nice/time/
// timeout/stdbuf/taskset/numactl, uv/poetry/pipenv/conda run, mpirun/srun,
// Python with its options (-m MODULE gives the module; torch.distributed.run
// and other launchers give the script they launch), torchrun, accelerate
// launch, deepspeed and shells (bash run.sh -> run). A script's extension is
// dropped; names are cut to 64 bytes at a character boundary.
std::string default_run_name(const std::vector<std::string>& argv);

}  // namespace gpuwatch
