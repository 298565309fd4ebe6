// The seed tools' file formats (gputop.py and the training wrapper), so that
// existing scripts keep working on gpuwatch's output:
//   single: an array of one-GPU samples (MiB, W, °C, %),
//   multi:  an array of ticks with `multi_gpu_data` and `aggregate_stats`.
// Writers stream through `emit` so a 35-hour run never sits in one string,
// and read the run a row at a time (core/row_cursor.h), so that it never
// sits in memory either.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/row_cursor.h"
#include "core/run.h"
#include "render/output_format.h"

namespace gpuwatch {

using TextSink = std::function<void(std::string_view)>;

// A run in memory as rows (core/row_cursor.h); `run` must outlive what it
// returns. The writers below take rows, so that a stored run streams from
// its chunks (store/sample_cursor.h) and a run in memory comes out the same.
OpenRows rows_in_memory(const RunData& run);

// gpu: only that device (by gpuwatch index); nullopt: every device, ordered
// by time, each element tagged with gpu_index.
void write_seed_single_json(const OpenRows& rows, std::optional<int> gpu, const TextSink& emit);
void write_seed_multi_json(const OpenRows& rows, const TextSink& emit);

// Rows of every device, merged by time, through a SampleFormatter name
// ("jsonl" or "csv"); jsonl also carries host rows and events.
void write_sample_rows(const OpenRows& rows, OutputFormat format, const TextSink& emit);

// `export`'s document in `format`: json (write_seed_single_json, `gpu` or
// every GPU), multi-json, or the rows of jsonl and csv; nothing for another
// format (tensorboard writes a folder of its own: render/tensorboard).
void write_export(const OpenRows& rows, OutputFormat format, std::optional<int> gpu, const TextSink& emit);

// The same over a run in memory (rows_in_memory).
void write_seed_single_json(const RunData& run, std::optional<int> gpu, const TextSink& emit);
void write_seed_multi_json(const RunData& run, const TextSink& emit);
void write_sample_rows(const RunData& run, OutputFormat format, const TextSink& emit);
void write_export(const RunData& run, OutputFormat format, std::optional<int> gpu, const TextSink& emit);

// A run name as part of a file name: UTF-8 letters of any script are kept
// ("训练" stays "训练"); replaced by '_' are what breaks paths or shells on
// some system: '/', '\\', NUL and other controls, spaces, the characters
// Windows refuses (<>:"|?*), invalid UTF-8, and a leading '.' or '-'
// (hidden files, options). At most 120 bytes, cut at a character
// boundary; "run" when nothing is left.
std::string file_name_part(std::string_view name);

// "gpu_stats_<name>_<YYYYmmdd_HHMMSS>": the seed tools' file stem, for the
// files record --output-dir writes and the plots beside them.
std::string seed_file_stem(const std::string& run_name, std::int64_t start_wall_ns);

}  // namespace gpuwatch
