// gpuwatch: watch GPUs while ML jobs run, record, explain, load-test.
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"gpuwatch: records GPU and host metrics while a command runs, and explains them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuwatch ") + GPUWATCH_VERSION);
  app.get_formatter()->column_width(34);
  int exit_code = 0;
  gpuwatch::cli::add_devices(app, exit_code);
  gpuwatch::cli::add_sample(app, exit_code);
  gpuwatch::cli::add_record(app, exit_code);
  gpuwatch::cli::add_runs(app, exit_code);
  gpuwatch::cli::add_report(app, exit_code);
  gpuwatch::cli::add_export(app, exit_code);
  gpuwatch::cli::add_compare(app, exit_code);
  gpuwatch::cli::add_import(app, exit_code);
  gpuwatch::cli::add_plot(app, exit_code);
  gpuwatch::cli::add_status(app, exit_code);
  gpuwatch::cli::add_bench(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; usage errors exit 2 like other Unix tools.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    try {
      fmt::print(stderr, "gpuwatch: error: {}\n", e.what());
    } catch (...) {  // stderr is gone too: nothing left to tell
    }
    return 1;
  }
  return exit_code;
}
