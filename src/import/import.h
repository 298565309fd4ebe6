// `gpuwatch import FILE` and RUN given as a file: every file format gpuwatch
// reads, detected from the content, turned into a run as the store holds
// them. Formats (see docs/import.md):
//   json, gputop-json              one-GPU sample arrays (seed_json.h)
//   multi-json, gputop-multi-json  multi-GPU tick arrays (seed_json.h)
//   jsonl, csv                     gpuwatch's row exports (sample_rows.h)
// Truncated files give every complete sample; the rest is counted as dropped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace gpuwatch {

struct ImportResult {
  RunData data;
  std::string format;
  std::size_t samples_read = 0;     // records kept: one-GPU samples, multi-GPU ticks, rows
  std::size_t samples_dropped = 0;  // records started but unusable (cut off, not JSON, no timestamp, ...)
  std::vector<std::string> warnings;
};

// A file gpuwatch cannot read, or one without a single usable sample.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The run in memory, named after the file's stem: for commands that take a
// file as RUN. Throws ImportError.
ImportResult import_file(const std::filesystem::path& path);
// `gpuwatch import`: the file into the store at `store_path` as a run named
// `run_name` (the file's stem when empty), in a memory that does not grow
// with the file (docs/import.md, "Memory"): what is read waits in a
// temporary file in `spill_dir`, and the store is opened once the whole file
// is read. result.data is the run's facts (its id), without samples. Throws
// ImportError (or StoreError) and then stores nothing.
ImportResult import_file_to_store(const std::filesystem::path& path, const std::filesystem::path& store_path,
                                  const std::string& run_name, const std::filesystem::path& spill_dir);
// The same over bytes already in memory; `run_name` names the run.
ImportResult import_text(std::string_view text, const std::string& run_name);
// import_text reading `text` chunk_bytes at a time, as import_file reads a
// file: for tests and the fuzzer, which check that the result is the same.
ImportResult import_text_in_chunks(std::string_view text, const std::string& run_name, std::size_t chunk_bytes);

}  // namespace gpuwatch
