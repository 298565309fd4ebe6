// gpuwatch: watch GPUs while ML jobs run, record, explain, load-test.
#include <cstdio>
#include <exception>
#include <new>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/cmd_rm.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "base/environment.h"
#include "base/system_paths.h"
#include "http/http_server.h"
#include "render/error_json.h"
#include "render/plot/cairo_library.h"
#include "render/terminal_text.h"
#include "store/store.h"

namespace {

// The message on stderr and, when the command was asked for JSON, as JSON
// on stdout too. Never throws: stdout or stderr may be gone.
int fail(CLI::App& app, std::string_view kind, std::string_view message, int code) {
  try {
    std::fflush(stdout);
    // A run name or a file's content may be part of the message.
    fmt::print(stderr, "gpuwatch: error: {}\n", gpuwatch::terminal_safe_lines(message));
    if (gpuwatch::cli::wants_json(app)) {
      fmt::print("{}", gpuwatch::render_error_json(kind, message, code));
      std::fflush(stdout);
    }
  } catch (...) {  // nothing left to tell it to
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuwatch::cli;
  CLI::App app{"gpuwatch: records GPU and host metrics while a command runs, and explains them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuwatch ") + GPUWATCH_VERSION);
  app.get_formatter()->column_width(34);
  app.footer(
      "Exit codes: 0 success, 1 error, 2 usage error, 9 no GPU found (devices, sample; as nvidia-smi);\n"
      "record exits with its command's status; matrix 1 when a cell failed, 128+N when signal N stopped it.");
  // Stores judge their recorders' liveness under the procfs root the
  // environment names (tests fake process tables there).
  gpuwatch::set_store_procfs_root(gpuwatch::SystemPaths::from_environment().procfs_root);
  gpuwatch::set_http_module_path(gpuwatch::environment_value("GPUWATCH_HTTP_MODULE").value_or(""));
  gpuwatch::plot::set_cairo_library(gpuwatch::environment_value("GPUWATCH_CAIRO_LIBRARY").value_or(""));
  int exit_code = 0;
  add_devices(app, exit_code);
  add_sample(app, exit_code);
  add_record(app, exit_code);
  add_runs(app, exit_code);
  add_rm(app, exit_code);
  add_prune(app, exit_code);
  add_report(app, exit_code);
  add_export(app, exit_code);
  add_compare(app, exit_code);
  add_import(app, exit_code);
  add_plot(app, exit_code);
  add_status(app, exit_code);
  add_top(app, exit_code);
  add_exporter(app, exit_code);
  add_serve(app, exit_code);
  add_bench(app, exit_code);
  add_matrix(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 2 like other Unix tools, naming the word at fault.
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    std::string message = e.what();
    // CLI11 names a hidden option "" (": ..."): a flag's former name, whose
    // check names it itself (cli/former_flag_names.h).
    if (message.rfind(": ", 0) == 0) message.erase(0, 2);
    try {
      if (auto better = diagnose_usage(app, args)) message = *better;
    } catch (const std::exception&) {  // keep CLI11's message
    }
    const int code = fail(app, "usage", message, kExitUsage);
    try {
      fmt::print(stderr, "Run with --help for more information.\n");
    } catch (...) {
    }
    return code;
  } catch (const NoGpuError& e) {
    return fail(app, "no_gpu", e.what(), kExitNoGpu);
  } catch (const std::bad_alloc&) {
    // What failed is an allocation, whose own message ("std::bad_alloc")
    // says nothing to a user; its size came from the data or the flags.
    return fail(app, "error",
                "out of memory: the system would not give this command the memory it asked for (what it reads or "
                "plans is too large for this machine, or for its memory limit, e.g. ulimit -v)",
                kExitError);
  } catch (const std::exception& e) {
    return fail(app, "error", e.what(), kExitError);
  }
  return exit_code;
}
