// What import.cpp (runs in memory) and import_to_store.cpp (runs streamed
// into the store) share: reading a file's records and the result's counts.
#pragma once

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "import/import.h"
#include "import/import_notes.h"
#include "import/run_builder.h"
#include "import/text_source.h"

namespace gpuwatch {

// Reads every record of `in` into `builder`, whatever its format, and drops
// the samples whose time cannot be right; returns the format's name. Throws
// ImportError, also for a file without a usable sample.
std::string read_source(TextSource& in, RunBuilder& builder, ImportNotes& notes);

// The counts and warnings of an import, without its run.
ImportResult import_counts(std::string format, const ImportNotes& notes);

// f(), with the file's path in front of the message of an ImportError.
template <typename F>
ImportResult naming_file(const std::filesystem::path& path, const F& f) {
  try {
    return f();
  } catch (const ImportError& e) {
    throw ImportError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace gpuwatch
