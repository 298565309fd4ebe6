// `rm` and `prune` (cmd_rm.cpp), registered like the commands in commands.h.
#pragma once

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

void add_rm(CLI::App& app, int& exit_code);
void add_prune(CLI::App& app, int& exit_code);

}  // namespace gpuwatch::cli
