#include <fmt/format.h>

#include "backends/backend.h"
#include "cli/commands.h"
#include "cli/gpu_required.h"
#include "cli/output.h"
#include "render/devices.h"

namespace gpuwatch::cli {

void add_devices(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "devices", "List every GPU with its static facts and the metrics it answers (exits 9 when there is none)");
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  // --json came first; kept for the scripts that use it.
  cmd->add_flag_callback("--json", [format] { *format = "json"; }, "Same as --format json");
  cmd->callback([format, &exit_code] {
    const BackendSet set = open_backends(SystemPaths::from_environment());
    require_gpus(set);
    print_output(*format == "json" ? render_devices_json(set.devices, set.notes) : render_devices_text(set.devices, set.notes));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
