// The picture of a stored run, for code that holds a store (render draws runs
// it is handed and never opens the store itself).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "core/rollup.h"
#include "render/plot/plot.h"
#include "store/store.h"

namespace gpuwatch::plot {

// A stored run's per-minute rollups of a few metrics only: what a picture
// of a long run reads (plot_rollups.h). The timeline needs 8 of a GPU's 19
// metrics, per-gpu 2; of two weeks at 10 Hz, a GPU's 19 blobs are 44 MB.
// Each call reads one GPU on a read-only connection of its own. nullopt for
// a run without complete rollups, a GPU without any, or a blob that does not
// decode: the picture is then read from the samples.
class StoredPlotRollups final : public RollupSource {
 public:
  StoredPlotRollups(std::filesystem::path store_path, const RunInfo& run, std::vector<DeviceMetric> metrics);
  [[nodiscard]] std::optional<DeviceRollups> rollups(int device_index) const override;

 private:
  std::filesystem::path store_path_;
  std::int64_t run_row_ = 0;
  std::vector<DeviceMetric> metrics_;
  bool complete_ = false;  // the run's rollups were all written when this was made
};

// What a picture needs of a stored run besides its GPUs' samples: the run,
// its events and its devices' facts; not its host samples (two weeks at
// 1 Hz are 1.3 M of them: seconds and hundreds of MB to decode).
RunData load_plot_base(Store& store, const RunInfo& run);

// The picture of a run in the store file `store_path` (`record
// --generate-graphs`): its GPUs are read one at a time, on read-only
// connections of their own, so a recorder may hold the store open; a long
// run's from its per-minute rollups when it has them.
void write_stored_run_plot(const std::filesystem::path& store_path, const RunInfo& run, const PlotOptions& options,
                           const std::filesystem::path& out);

}  // namespace gpuwatch::plot
