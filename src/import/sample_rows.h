// gpuwatch's own row formats, `export|sample --format jsonl|csv`: every metric in
// its stored unit under its catalogue name (core/metrics.h), so values come
// back as they were stored.
//   jsonl: one object per line, "type" "device" (gpu, gpu_name,
//          metrics) or "host" (host metrics, core_percent), with wall_ns.
//   csv:   a header (timestamp, elapsed_s, gpu, gpu_name, metrics)
//          and one row per device sample.
// A record counts only when complete; a CSV row without its newline at the
// end of the file may have lost digits, so it is dropped.
#pragma once

#include <string_view>

#include "import/import_notes.h"
#include "import/run_builder.h"
#include "import/text_source.h"

namespace gpuwatch {

// Both read `in` record by record, never the whole file at once.
void import_jsonl(TextSource& in, RunBuilder& builder, ImportNotes& notes);
void import_csv(TextSource& in, RunBuilder& builder, ImportNotes& notes);

}  // namespace gpuwatch
