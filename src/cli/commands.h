// Each command registers itself on the app and sets `exit_code` when it runs.
// Commands only parse flags and call into the library: no logic lives here.
#pragma once

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

void add_bench(CLI::App& app, int& exit_code);
void add_devices(CLI::App& app, int& exit_code);
void add_sample(CLI::App& app, int& exit_code);
void add_record(CLI::App& app, int& exit_code);
void add_runs(CLI::App& app, int& exit_code);
void add_report(CLI::App& app, int& exit_code);
void add_export(CLI::App& app, int& exit_code);
void add_compare(CLI::App& app, int& exit_code);
void add_import(CLI::App& app, int& exit_code);
void add_plot(CLI::App& app, int& exit_code);
void add_status(CLI::App& app, int& exit_code);
void add_top(CLI::App& app, int& exit_code);
void add_exporter(CLI::App& app, int& exit_code);
void add_serve(CLI::App& app, int& exit_code);
void add_matrix(CLI::App& app, int& exit_code);

}  // namespace gpuwatch::cli
