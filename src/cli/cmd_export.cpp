#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "base/atomic_file.h"
#include "render/seed_files.h"
#include "render/tensorboard/tensorboard.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_export(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "export",
      "Write a run's samples: json (the seed tools' one-GPU array), multi-json (gputop's _multi_gpu.json),\n"
      "jsonl (every metric, device and host rows), csv (every device metric), tensorboard (an event file in\n"
      "the folder -o names)");
  struct Flags {
    std::string run;
    std::string store;
    OutputFormat format = OutputFormat::json;
    std::string output;
    int gpu = -1;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->run, kRunHelp)->required();
  add_format_option(*cmd, flags->format,
                    {OutputFormat::json, OutputFormat::multi_json, OutputFormat::jsonl, OutputFormat::csv,
                     OutputFormat::tensorboard},
                    "json, multi-json, jsonl, csv or tensorboard", true);
  cmd->add_option("-o,--output", flags->output,
                  "Write to FILE (atomically) instead of stdout; for tensorboard, the log folder (made if missing)");
  cmd->add_option("--gpu", flags->gpu, "json only: just this GPU (default: every GPU, tagged gpu_index)")
      ->check(whole_check("a GPU index", 0, std::nullopt, "0"));
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    if (flags->format == OutputFormat::tensorboard && flags->output.empty()) {
      throw CLI::ValidationError("--format tensorboard", "needs -o DIR, the folder TensorBoard reads");
    }
    // Read as it is written, a chunk per series at a time: the first bytes
    // come at once and memory does not grow with the run (issue 25).
    const RunRows rows = open_run_rows(flags->run, flags->store);
    if (flags->format == OutputFormat::tensorboard) {
      std::filesystem::create_directories(flags->output);
      const RunData base = rows.open(RowSelection{std::nullopt, false, false})->base();
      const std::filesystem::path file = std::filesystem::path(flags->output) / tensorboard_file_name(base);
      write_file_atomically(file, [&](const WriteChunk& w) { write_tensorboard_events(rows.open, w); });
      std::printf("%s\n", file.c_str());
      exit_code = 0;
      return;
    }
    std::optional<int> gpu;
    if (flags->gpu >= 0) {
      const RunData base = rows.open(RowSelection{std::nullopt, false, false})->base();
      bool found = false;
      for (const auto& d : base.devices) found = found || d.info.index == flags->gpu;
      if (!found) throw std::runtime_error(fmt::format("--gpu: run {} has no GPU {}", base.run.id, flags->gpu));
      gpu = flags->gpu;
    }
    auto produce = [&](const TextSink& emit) { write_export(rows.open, flags->format, gpu, emit); };
    if (flags->output.empty()) {
      produce([](std::string_view s) {
        if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) throw std::runtime_error("cannot write to stdout");
      });
      if (std::fflush(stdout) != 0) throw std::runtime_error("cannot write to stdout");
    } else {
      write_file_atomically(flags->output, [&](const WriteChunk& w) { produce(w); });
    }
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
