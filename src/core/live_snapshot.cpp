#include "core/live_snapshot.h"

namespace gpuwatch {

const LiveDevice* LiveSnapshot::device(int index) const {
  for (const LiveDevice& d : devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

}  // namespace gpuwatch
