#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "import/import.h"
#include "store/store.h"

namespace gpuwatch::cli {

namespace {

// Where the import keeps what it read until the file is whole: $TMPDIR when
// set, else beside the store (a disk that takes the run anyway, where /tmp
// may be memory), else /tmp while the store's directory does not exist yet.
std::filesystem::path spill_directory(const std::filesystem::path& store) {
  if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) return tmp;
  const std::filesystem::path dir = store.parent_path().empty() ? std::filesystem::path(".") : store.parent_path();
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir : std::filesystem::path("/tmp");
}

}  // namespace

void add_import(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "import",
      "Store a run from a file: gputop.py's JSON (and its _multi_gpu.json), the seed tools' JSON,\n"
      "or `gpuwatch export` output (json, multi-json, jsonl, csv). Truncated files give every\n"
      "complete sample; how many were dropped is reported, and values out of their field's range\n"
      "are taken as absent with a warning (docs/import.md). Only regular files are read (not\n"
      "/dev/zero, a FIFO or a directory), a chunk at a time, in a memory that does not grow with the\n"
      "file: what was read waits in a temporary file in $TMPDIR (else beside the store). A record\n"
      "(line, array element, CSV row) may be up to 1 MiB, a name up to 4096 bytes: a longer one is an\n"
      "error that names it, and nothing is stored. Any command that takes RUN also takes such a file\n"
      "directly, without storing it.");
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
    const std::filesystem::path store = store_path(flags->store);
    const ImportResult result = import_file_to_store(flags->file, store, flags->name, spill_directory(store));
    print_import_warnings(flags->file, result);
    fmt::print("imported {} ({}): {} samples read, {} dropped\n", result.data.run.id, result.format,
               result.samples_read, result.samples_dropped);
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
