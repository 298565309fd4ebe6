#include "import/import.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "import/import_notes.h"
#include "import/json_elements.h"
#include "import/run_builder.h"
#include "import/sample_rows.h"
#include "import/seed_json.h"

namespace gpuwatch {

namespace {

enum class Kind { JsonArray, JsonLines, Csv, Unknown };

// gpuwatch's CSV header starts with these columns.
constexpr std::string_view kCsvHeader = "timestamp,elapsed_s,gpu_index";

Kind detect(std::string_view text) {
  const std::size_t pos = skip_bom_and_space(text);
  if (pos >= text.size()) return Kind::Unknown;
  if (text[pos] == '[') return Kind::JsonArray;
  if (text[pos] == '{') return Kind::JsonLines;
  if (text.substr(pos, kCsvHeader.size()) == kCsvHeader) return Kind::Csv;
  return Kind::Unknown;
}

}  // namespace

ImportResult import_text(std::string_view text, const std::string& run_name) {
  if (skip_bom_and_space(text) >= text.size()) throw ImportError("the file is empty");
  RunBuilder builder;
  ImportNotes notes;
  ImportResult result;
  switch (detect(text)) {
    case Kind::JsonArray:
      result.format = import_seed_json(text, builder, notes);
      break;
    case Kind::JsonLines:
      import_jsonl(text, builder, notes);
      result.format = "jsonl";
      break;
    case Kind::Csv:
      import_csv(text, builder, notes);
      result.format = "csv";
      break;
    case Kind::Unknown:
      throw ImportError(
          "not a format gpuwatch imports: expected a JSON array of samples (gputop.py, the seed tools, "
          "`gpuwatch export --format json|multi-json`), JSON lines or CSV from `gpuwatch export`");
  }
  if (notes.samples_read() == 0) {
    const std::size_t dropped = notes.samples_dropped();
    throw ImportError(dropped ? fmt::format("no usable sample in this {} file ({} dropped: {})", result.format,
                                            dropped, notes.drop_reasons())
                              : fmt::format("no sample in this {} file", result.format));
  }
  result.data = builder.build(run_name, notes);
  result.samples_read = notes.samples_read();
  result.samples_dropped = notes.samples_dropped();
  result.warnings = notes.warnings();
  return result;
}

ImportResult import_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ImportError(fmt::format("{} is a directory", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  // Read in one piece: seed files of long runs reach hundreds of MB, and a
  // stream copy would hold them twice.
  std::string content;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) content.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw ImportError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  try {
    return import_text(content, path.stem().string());
  } catch (const ImportError& e) {
    throw ImportError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace gpuwatch
