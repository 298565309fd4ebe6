// Lines that end an epoch (`--annotate-regex` group `epoch_end`) told apart
// from lines that start one. Most scripts print "Epoch 1/3 loss 0.52" when
// epoch 1 is done; read as a start, every epoch was shifted by one and the
// first lost (issue 22). An end of epoch N is stored as epoch N's start,
// back-dated to where the epoch before it ended (or the command started),
// and its end now, so that the time after the last epoch is no epoch's.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "annotate/annotation.h"

namespace gpuwatch {

class EpochEnds {
 public:
  using Timed = std::pair<Annotation, Timestamp>;

  explicit EpochEnds(Timestamp command_start) : boundary_(command_start) {}

  // What to deliver for `a`, seen at `seen`: `a` itself unless it ends an
  // epoch; then the epoch's start (unless already open) and its end, or
  // nothing when the same epoch was ended already.
  std::vector<Timed> on_annotation(Annotation a, Timestamp seen);

 private:
  Timestamp boundary_;
  std::optional<std::int64_t> open_;        // the epoch a start announced
  std::optional<std::int64_t> last_ended_;
};

}  // namespace gpuwatch
