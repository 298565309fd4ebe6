// Seed 004's one-line live view:
//   GPU: 85% | VRAM:12.3/24.0GB(51.2%) | CPU: 45.2% | RAM:18.4/64.0GB(28.8%)
// With several GPUs each gets its own parts, numbered: GPU0, VRAM0, GPU1, ...
// "GB" here is 2^30 bytes, as in the seed's script.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// What the training said last (record --annotate-regex, the annotation
// socket): shown at the line's end as "| epoch 3 step 1200".
struct StatusProgress {
  std::optional<std::int64_t> epoch;
  std::optional<std::int64_t> step;
};

// The seed's line, then the progress; when it is wider than `width` columns (0: no limit), a
// compact one (GPU utilization and memory share per GPU:
//   "GPU 85% 10% | VRAM 51% 4% | CPU 45% | RAM 29%"),
// and when even that does not fit, one summing up the GPUs:
//   "8 GPUs: 48% (10-99%) | VRAM 37% | CPU 45% | RAM 29%".
// each still followed by the progress. Whatever is still too wide is cut at
// `width`.
std::string format_status_line(const std::vector<DeviceSample>& latest_per_gpu, const HostValues& host,
                               std::size_t width = 0, const StatusProgress& progress = {});

}  // namespace gpuwatch
