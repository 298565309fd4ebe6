// --format, the one flag that picks an output format, for every command that
// has it: the word given becomes an OutputFormat here, once, and the command
// passes that down to its renderer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "render/output_format.h"

namespace gpuwatch::cli {

// A word --format accepts and the format it means ("table" is sample's word
// for text; "json" is jsonl to sample).
struct FormatWord {
  std::string_view word;
  OutputFormat format;
};

// Adds --format taking `words` (CLI11's "--format: yaml not in {text,json}"
// and exit 2 for any other word) into `format`, whose value going in is the
// default shown in --help; `required` when there is no default.
CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& format, std::vector<FormatWord> words,
                               const std::string& help, bool required = false);
// The same with each format's own name as its word.
CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& format, std::initializer_list<OutputFormat> formats,
                               const std::string& help, bool required = false);

}  // namespace gpuwatch::cli
