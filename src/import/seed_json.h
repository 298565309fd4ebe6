// The JSON arrays of the seed tools and of `gpuwatch export`:
//   - one-GPU samples: gpuwatch's `--format json` and the training wrapper
//     (scalar `temperature`, `elapsed_seconds`, `training_metadata`), the
//     legacy seed format, and gputop.py's own file (a `temperatures` dict of
//     sensors, `clocks`, `clock_states`, `fan_speed`, `power_limit`);
//   - multi-GPU ticks ({timestamp, multi_gpu_data: [...], aggregate_stats}):
//     gputop.py's `_multi_gpu.json` and gpuwatch's `--format multi-json`.
// Each element is judged on its own shape, so a file mixing both still reads.
#pragma once

#include <string>
#include <string_view>

#include "import/import_notes.h"
#include "import/run_builder.h"
#include "import/text_source.h"

namespace gpuwatch {

// Reads the array that `in` holds into `builder`, element by element. Returns the format's name:
// "json", "multi-json", or with gputop.py's fields "gputop-json",
// "gputop-multi-json".
std::string import_seed_json(TextSource& in, RunBuilder& builder, ImportNotes& notes);

}  // namespace gpuwatch
