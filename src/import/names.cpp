#include "import/names.h"

#include "core/utf8.h"

namespace gpuwatch {

std::string ascii_lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string vendor_from(std::string_view gpu_type, std::string_view gpu_name) {
  for (const std::string& text : {ascii_lowercase(gpu_type), ascii_lowercase(gpu_name)}) {
    if (text.find("nvidia") != std::string::npos) return "NVIDIA";
    if (text.find("amd") != std::string::npos || text.find("radeon") != std::string::npos) return "AMD";
    if (text.find("intel") != std::string::npos) return "Intel";
  }
  return std::string(gpu_type);
}

std::string valid_utf8(std::string_view s, std::size_t& replaced) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (const std::size_t n = utf8_sequence_length(s, i)) {
      out.append(s.substr(i, n));
      i += n - 1;
    } else {
      out += kReplacementCharacter;
      ++replaced;
    }
  }
  return out;
}

}  // namespace gpuwatch
