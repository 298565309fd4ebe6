// `gpuwatch export RUN --format tensorboard -o DIR`: a run's samples as a
// TensorBoard event file, so its GPU metrics sit beside the training's own
// scalars in a TensorBoard a team already runs.
#pragma once

#include <cstddef>
#include <string>

#include "core/run.h"
#include "render/seed_files.h"

namespace gpuwatch {

// Per tag at most this many points: a longer series is cut into this many
// runs of consecutive samples, each written as its mean at its last sample
// (TensorBoard itself keeps 1,000 points of a scalar by default).
inline constexpr std::size_t kMaxTensorboardPointsPerTag = 10000;

// The event file: a file_version record, then per tag ("gpu0/gpu_util_percent",
// "host/cpu_percent", and "log/loss" for each scalar the training logged)
// its points. A point's step is the training step annotated at or before it
// (gpuwatch.step(), --annotate-regex), else the point's index in its tag.
// The rows are read one series at a time, twice (each tag's count of values
// decides how many a point stands for), so that memory holds one GPU's
// points, not the run.
void write_tensorboard_events(const OpenRows& rows, const TextSink& emit);
void write_tensorboard_events(const RunData& data, const TextSink& emit);

// "events.out.tfevents.<start unix s>.<host>.gpuwatch": the name TensorBoard
// looks for in a log directory.
std::string tensorboard_file_name(const RunData& data);

}  // namespace gpuwatch
