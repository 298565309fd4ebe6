#include "core/job_id.h"

namespace gpuwatch {

bool job_id_matches(const JobInfo& job, std::string_view id) {
  if (id.empty()) return false;
  if (job.id == id) return true;
  // "77" names "77_3", never "770_3" nor, for an id given by hand, "77_3".
  return job.source == "slurm" && id.find('_') == std::string_view::npos && job.id.size() > id.size() + 1 &&
         job.id.compare(0, id.size(), id) == 0 && job.id[id.size()] == '_';
}

}  // namespace gpuwatch
