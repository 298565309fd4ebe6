#include "annotate/epoch_ends.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Timestamp at_s(int s) { return Timestamp{static_cast<std::int64_t>(s) * 1'000'000'000, 0}; }

Annotation epoch(std::int64_t n, bool end) {
  Annotation a;
  a.kind = AnnotationKind::Epoch;
  a.count = n;
  a.epoch_end = end;
  return a;
}

// What is delivered, as "<count><s|e>@<second>".
std::vector<std::string> delivered(EpochEnds& ends, Annotation a, int second) {
  std::vector<std::string> out;
  for (const auto& [annotation, when] : ends.on_annotation(std::move(a), at_s(second))) {
    out.push_back(std::to_string(annotation.count) + (annotation.epoch_end ? "e" : "s") + "@" +
                  std::to_string(when.mono_ns / 1'000'000'000));
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(EpochEnds, AnEndIsTheEpochFromTheLastBoundary) {
  EpochEnds ends(at_s(10));
  EXPECT_EQ(delivered(ends, epoch(1, true), 14), (Strings{"1s@10", "1e@14"}));
  EXPECT_EQ(delivered(ends, epoch(2, true), 18), (Strings{"2s@14", "2e@18"}));
  EXPECT_EQ(delivered(ends, epoch(2, true), 19), Strings{});  // the summary says it again
}

TEST(EpochEnds, AnEpochStartedByALineIsOnlyEnded) {
  EpochEnds ends(at_s(0));
  EXPECT_EQ(delivered(ends, epoch(1, false), 2), (Strings{"1s@2"}));
  EXPECT_EQ(delivered(ends, epoch(1, true), 5), (Strings{"1e@5"}));
  Annotation loss;
  loss.kind = AnnotationKind::Log;
  EXPECT_EQ(ends.on_annotation(loss, at_s(6)).size(), 1U);
}

TEST(EpochEnds, AnEndIsStoredAsAnEpochEventWithoutLabel) {
  EXPECT_EQ(annotation_event(epoch(3, true), at_s(1)).message, "");
  EXPECT_EQ(annotation_event(epoch(3, true), at_s(1)).kind, "epoch");
  EXPECT_EQ(annotation_event(epoch(3, false), at_s(1)).message, "3");
}

}  // namespace
}  // namespace gpuwatch
