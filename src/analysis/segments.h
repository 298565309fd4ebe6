// Labelled spans of a run, from the training's own annotations: phases
// (train, val, test) and epochs. The report breaks its statistics down by
// them; compare aligns runs by them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/stats.h"
#include "analysis/step_timing.h"
#include "core/run.h"

namespace gpuwatch {

enum class SegmentKind { Phase, Epoch };

struct Segment {
  SegmentKind kind = SegmentKind::Phase;
  std::string label;  // "train", "val", or the epoch number
  std::int64_t start_mono_ns = 0;
  std::int64_t end_mono_ns = 0;
};

// Events of kind "phase" or "epoch" (the message is the label) each open a
// segment that the next event of the same kind, or `run_end_mono_ns`, closes.
// An event with an empty label only closes; one that repeats the open
// segment's label changes nothing (epoch 3 said on every line is one epoch).
std::vector<Segment> segments_from_events(std::span<const Event> events, std::int64_t run_end_mono_ns);

struct SegmentDeviceStats {
  int device_index = 0;
  std::optional<Summary> util_percent;
  std::optional<Summary> mem_used_bytes;
  std::optional<Summary> power_watts;
};

// One row per label: all segments with that label taken together (every
// "train" phase of the run), in order of first appearance. Beyond
// kMaxSegmentRows labels (200,000 one-second epochs), the first and last
// kSegmentEdgeRows keep their rows and those in between share one, whose
// label is "FIRST..LAST" and whose merged_labels says how many it holds: a
// table a person can read, and memory bounded by the samples, not the epochs.
inline constexpr std::size_t kSegmentEdgeRows = 20;
inline constexpr std::size_t kMaxSegmentRows = 2 * kSegmentEdgeRows + 1;

struct SegmentStats {
  SegmentKind kind = SegmentKind::Phase;
  std::string label;
  std::size_t occurrences = 0;
  double duration_s = 0;
  std::vector<SegmentDeviceStats> devices;
  std::size_t merged_labels = 0;  // 0: one label; else the labels this row stands for
  std::optional<StepTiming> step_timing;  // the client's step-timing messages inside the row's segments
};

std::vector<SegmentStats> summarize_segments(const RunData& data, std::span<const Segment> segments, SegmentKind kind);

// The same in steps, for callers that hold one device at a time: the rows
// without devices, then each device's statistics added to every row.
// Linear in segments and samples (plus a binary search per segment).
std::vector<SegmentStats> segment_rows(std::span<const Segment> segments, SegmentKind kind);
void add_segment_device(std::vector<SegmentStats>& rows, std::span<const Segment> segments, const DeviceSeries& device);
// Each row's step timing: the messages (in time order) inside its segments.
void add_segment_step_timing(std::vector<SegmentStats>& rows, std::span<const Segment> segments,
                             std::span<const StepTimingMessage> messages);

}  // namespace gpuwatch
