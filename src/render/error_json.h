// The JSON a command prints on stdout instead of its result when it fails
// and was asked for JSON: agents read stdout, and a bare exit code or a
// message on stderr tells them little.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

// {"schema_version": 1, "error": {"kind": ..., "message": ..., "exit_code": N}}
// kind: "usage", "no_gpu" or "error". Ends with a newline.
std::string render_error_json(std::string_view kind, std::string_view message, int exit_code);

}  // namespace gpuwatch
