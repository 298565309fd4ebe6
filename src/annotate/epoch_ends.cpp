#include "annotate/epoch_ends.h"

namespace gpuwatch {

std::vector<EpochEnds::Timed> EpochEnds::on_annotation(Annotation a, Timestamp seen) {
  std::vector<Timed> out;
  if (a.kind != AnnotationKind::Epoch) {
    out.emplace_back(std::move(a), seen);
    return out;
  }
  if (!a.epoch_end) {
    open_ = a.count;
    out.emplace_back(std::move(a), seen);
    return out;
  }
  if (last_ended_ == a.count && !open_) return out;  // a summary that says it again
  if (open_ != a.count) {
    Annotation start = a;
    start.epoch_end = false;
    out.emplace_back(std::move(start), boundary_);
  }
  last_ended_ = a.count;
  open_.reset();
  boundary_ = seen;
  out.emplace_back(std::move(a), seen);
  return out;
}

}  // namespace gpuwatch
