#include <fmt/format.h>

#include "backends/backend.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/gpu_required.h"
#include "cli/output.h"
#include "render/devices.h"

namespace gpuwatch::cli {

void add_devices(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "devices", "List every GPU with its static facts and the metrics it answers (exits 9 when there is none)");
  auto format = std::make_shared<OutputFormat>(OutputFormat::text);
  add_format_option(*cmd, *format, {OutputFormat::text, OutputFormat::json}, "text or json");
  // --json came first; kept for the scripts that use it.
  cmd->add_flag_callback("--json", [format] { *format = OutputFormat::json; }, "Same as --format json");
  cmd->callback([format, &exit_code] {
    const BackendSet set = open_backends(SystemPaths::from_environment());
    require_gpus(set);
    print_output(render_devices(set.devices, set.notes, *format));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
