#include <fmt/format.h>

#include "backends/backend.h"
#include "cli/commands.h"
#include "render/devices.h"

namespace gpuwatch::cli {

void add_devices(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("devices", "List every GPU with its static facts and the metrics it answers");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([json, &exit_code] {
    const BackendSet set = open_backends(SystemPaths::from_environment());
    fmt::print("{}", *json ? render_devices_json(set) : render_devices_text(set));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
