#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "import/import.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_import(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "import",
      "Store a run from a file: gputop.py's JSON (and its _multi_gpu.json), the seed tools' JSON,\n"
      "or `gpuwatch export` output (json, multi-json, jsonl, csv). Truncated files give every\n"
      "complete sample; how many were dropped is reported, and values out of their field's range\n"
      "are taken as absent with a warning (docs/import.md). Only regular files are read (not\n"
      "/dev/zero, a FIFO or a directory), a chunk at a time. Any command that takes RUN also takes\n"
      "such a file directly, without storing it.");
  struct Flags {
    std::string file;
    std::string name;
    std::string store;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("FILE", flags->file, "The file to import")->required();
  cmd->add_option("--name", flags->name, "Name of the run (default: the file's name without extension)");
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    ImportResult result = import_file(flags->file);
    print_import_warnings(flags->file, result);
    if (!flags->name.empty()) result.data.run.name = flags->name;
    const std::string id = Store::open(store_path(flags->store), false)->import_run(result.data);
    fmt::print("imported {} ({}): {} samples read, {} dropped\n", id, result.format, result.samples_read,
               result.samples_dropped);
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
