#include "analysis/pooled.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch {

std::optional<Pooled> pool(std::span<const Summary* const> per_gpu) {
  Pooled p;
  double weight_total = 0;
  double weighted_sum = 0;
  for (const Summary* s : per_gpu) {
    if (s == nullptr) continue;
    const double w = s->span_s > 0 ? s->span_s : 1;
    if (p.gpus == 0) {
      p.min = s->min;
      p.max = s->max;
    }
    ++p.gpus;
    p.count += s->count;
    p.span_s += s->span_s;
    p.min = std::min(p.min, s->min);
    p.max = std::max(p.max, s->max);
    p.sum_of_means += s->mean;
    weight_total += w;
    weighted_sum += w * s->mean;
  }
  if (p.gpus == 0) return std::nullopt;
  p.mean = weighted_sum / weight_total;
  // Law of total variance: the spread inside each GPU plus that between them.
  double variance = 0;
  for (const Summary* s : per_gpu) {
    if (s == nullptr) continue;
    const double w = s->span_s > 0 ? s->span_s : 1;
    variance += w * (s->std * s->std + (s->mean - p.mean) * (s->mean - p.mean));
  }
  p.std = std::sqrt(variance / weight_total);
  return p;
}

}  // namespace gpuwatch
