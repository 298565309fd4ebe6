// Owners of GPU processes as the tests of the store and the renderers use
// them: a Slurm array task's step and a Burstable pod's CRI-O container.
#pragma once

#include "core/process_attribution.h"

namespace gpuwatch::test {

inline ProcessAttribution slurm_array_task() {
  ProcessAttribution a;
  a.job = "1240";
  a.step = "0";
  a.array_job = "1233";
  a.array_task = "7";
  return a;
}

inline ProcessAttribution burstable_pod() {
  ProcessAttribution a;
  a.container = "c0ffee11223344556677889900aabbccddeeff00112233445566778899aabbcc";
  a.runtime = "crio";
  a.pod_uid = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
  a.qos = "Burstable";
  return a;
}

}  // namespace gpuwatch::test
