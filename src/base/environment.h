// The process's environment, read in one place. Only cli/ includes this
// header (cmake/check_layers.cmake fails the build on a getenv or environ
// anywhere else): the command line reads what a command needs and passes the
// values down, so every layer below says in its options what it depends on
// and a test sets it without touching the process's environment.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuwatch {

// The value of `name`; nullopt when it is not set (an empty value is a value).
std::optional<std::string> environment_value(const char* name);

// Every NAME=VALUE entry, in the environment's order: what a child process
// started by gpuwatch inherits.
std::vector<std::string> environment_entries();

}  // namespace gpuwatch
