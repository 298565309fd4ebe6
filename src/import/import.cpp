#include "import/import.h"

#include <fmt/format.h>

#include "import/import_notes.h"
#include "import/import_source.h"
#include "import/json_elements.h"
#include "import/run_builder.h"
#include "import/sample_rows.h"
#include "import/seed_json.h"
#include "import/text_source.h"

namespace gpuwatch {

namespace {

enum class Kind { JsonArray, JsonLines, Csv, Unknown };

// gpuwatch's CSV header starts with these columns.
// The start of `export --format csv`'s header: its GPU column is "gpu", or
// "gpu_index" before schema_version 2; both start so.
constexpr std::string_view kCsvHeader = "timestamp,elapsed_s,gpu";

// Looks at the first bytes after a BOM and whitespace (which it consumes).
Kind detect(TextSource& in) {
  in.ensure(kCsvHeader.size());
  const std::string_view w = in.window();
  if (w.front() == '[') return Kind::JsonArray;
  if (w.front() == '{') return Kind::JsonLines;
  if (w.substr(0, kCsvHeader.size()) == kCsvHeader) return Kind::Csv;
  return Kind::Unknown;
}

}  // namespace

std::string read_source(TextSource& in, RunBuilder& builder, ImportNotes& notes) {
  if (!in.skip_bom_and_space()) throw ImportError("the file is empty");
  std::string format;
  switch (detect(in)) {
    case Kind::JsonArray:
      format = import_seed_json(in, builder, notes);
      break;
    case Kind::JsonLines:
      import_jsonl(in, builder, notes);
      format = "jsonl";
      break;
    case Kind::Csv:
      import_csv(in, builder, notes);
      format = "csv";
      break;
    case Kind::Unknown:
      throw ImportError(
          "not a format gpuwatch imports: expected a JSON array of samples (gputop.py, the seed tools, "
          "`gpuwatch export --format json|multi-json`), JSON lines or CSV from `gpuwatch export`");
  }
  builder.drop_implausible_times(notes);
  if (notes.samples_read() == 0) {
    const std::size_t dropped = notes.samples_dropped();
    throw ImportError(dropped ? fmt::format("no usable sample in this {} file ({} dropped: {})", format, dropped,
                                            notes.drop_reasons())
                              : fmt::format("no sample in this {} file", format));
  }
  return format;
}

ImportResult import_counts(std::string format, const ImportNotes& notes) {
  ImportResult result;
  result.format = std::move(format);
  result.samples_read = notes.samples_read();
  result.samples_dropped = notes.samples_dropped();
  result.warnings = notes.warnings();
  return result;
}

namespace {

// A builder that spills to a file in the temporary directory ($TMPDIR), or
// to memory where no file can be made there.
RunBuilder temp_file_builder() {
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (!ec) {
    try {
      return RunBuilder(tmp);
    } catch (const ImportError&) {
    }
  }
  return RunBuilder();
}

ImportResult import_source(TextSource& in, const std::string& run_name, RunBuilder&& builder = RunBuilder()) {
  ImportNotes notes;
  std::string format = read_source(in, builder, notes);
  RunData data = builder.build(run_name, notes);
  ImportResult result = import_counts(std::move(format), notes);
  result.data = std::move(data);
  return result;
}

}  // namespace

ImportResult import_text(std::string_view text, const std::string& run_name) {
  TextSource in(text);
  return import_source(in, run_name);
}

ImportResult import_text_in_chunks(std::string_view text, const std::string& run_name, std::size_t chunk_bytes) {
  TextSource in(text, chunk_bytes);
  return import_source(in, run_name);
}

ImportResult import_file(const std::filesystem::path& path) {
  return naming_file(path, [&] {
    // Read a chunk at a time: exports of long runs reach GBs. The run is
    // kept in memory, as columns; what was read waits in a temporary file
    // (in memory where none can be made) rather than beside them.
    TextSource in(path);
    return import_source(in, path.stem().string(), temp_file_builder());
  });
}

}  // namespace gpuwatch
