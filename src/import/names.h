// Names as the imported files spell them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuwatch {

std::string ascii_lowercase(std::string_view s);

// "NVIDIA", "AMD" or "Intel" from a gpu_type (gputop.py wrote "amd",
// "nvidia_desktop", "nvidia_jetson"; gpuwatch the vendor) or else from the
// GPU's name; the type as written when neither tells.
std::string vendor_from(std::string_view gpu_type, std::string_view gpu_name);

// `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD;
// counts the replaced bytes into `replaced`.
std::string valid_utf8(std::string_view s, std::size_t& replaced);

}  // namespace gpuwatch
