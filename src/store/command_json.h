// The runs.command column: argv as a JSON array of strings, so that `sqlite3`
// users and other tools can read it. Bytes that are not valid UTF-8 (argv may
// hold any bytes) are written unchanged rather than replaced, so the decoder
// below gives back exactly the argv that was recorded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

std::string encode_argv_json(const std::vector<std::string>& argv);

// nullopt when `json` is not an array of strings.
std::optional<std::vector<std::string>> decode_argv_json(std::string_view json);

}  // namespace gpuwatch
