// Writes a file so that readers see either the old file or the complete new
// one, never a torn one: write a temporary beside it, fsync, rename. Every
// write error is reported (the seed tool silently lost data here).
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace gpuwatch {

using WriteChunk = std::function<void(std::string_view)>;

// Calls produce() with a function that appends to the file. Throws
// std::runtime_error naming the path and the OS error.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const WriteChunk&)>& produce);

}  // namespace gpuwatch
