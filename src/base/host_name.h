// This machine's name, as runs, bench results and the live views record it.
#pragma once

#include <string>

namespace gpuwatch {

// gethostname(2); empty when it fails.
std::string host_name();

}  // namespace gpuwatch
