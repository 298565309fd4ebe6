// How a layer below cli/ asks for an environment variable it documents:
// through a lookup its caller passes in (cli/ passes base/environment.h's
// environment_value; a test passes a map), never by reading the process's
// environment itself.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace gpuwatch {

// A value of the environment by name; nullopt where unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

}  // namespace gpuwatch
