// How much of a file one record may take. Records (a JSON line, an element
// of a JSON array, a CSV row) are read whole before they are parsed, so the
// longest one bounds the importer's memory whatever the size of the file;
// a longer one is refused with where it is and in which field, before
// anything is stored (docs/import.md, "Limits").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "import/import_notes.h"

namespace gpuwatch {

// A line, an array element, a CSV row. The largest legitimate ones, gputop.py's
// ticks of eight GPUs with their clock tables, take a few kB.
inline constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 20;
inline constexpr std::string_view kMaxRecordShown = "1 MiB";
// A GPU's name or type, a process's name: NVML's names take 96 bytes.
inline constexpr std::size_t kMaxNameBytes = 4096;

// Throws the ImportError for a record longer than kMaxRecordBytes at
// `where` ("line 3"), whose limit fell in `field` (a path such as
// `multi_gpu_data[2].gpu_name`; empty: in no field).
[[noreturn]] void record_too_long(std::string_view where, std::string_view field);

// `value`, unless it is longer than kMaxNameBytes: then throws the
// ImportError that names the record (notes.where()) and the field.
std::string_view checked_name(std::string_view value, std::string_view field, const ImportNotes& notes);

// The path of the JSON value that byte `pos` of `text` (one JSON value,
// possibly cut) lies in: `gpu_name`, `multi_gpu_data[2].temperatures.GPU`;
// empty at the top level. Keys are shown as written, cut to 40 bytes, with
// control characters as '?'.
std::string json_path_at(std::string_view text, std::size_t pos);

}  // namespace gpuwatch
