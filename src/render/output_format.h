// Every output format gpuwatch writes, named once. The command line turns
// --format's word into an OutputFormat (cli/format_option.h) and passes it
// down; each kind of document has one renderer that switches on it
// (render_report, render_compare, render_runs, ...), so no layer below the
// command line compares format names.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch {

enum class OutputFormat : std::uint8_t {
  text,         // for terminals (sample calls it "table")
  markdown,     // notes and pull requests
  json,         // one document
  jsonl,        // one JSON object a line: streams and exports
  csv,          // a header and one row a sample
  multi_json,   // export: gputop's _multi_gpu.json
  tensorboard,  // export: an event file in a folder
  kCount
};

inline constexpr std::array<std::string_view, static_cast<std::size_t>(OutputFormat::kCount)> kOutputFormatNames{
    "text", "markdown", "json", "jsonl", "csv", "multi-json", "tensorboard"};

// The word --format takes: "text", "multi-json".
constexpr std::string_view output_format_name(OutputFormat format) {
  return kOutputFormatNames[static_cast<std::size_t>(format)];
}

// The format a word names, or nullopt.
constexpr std::optional<OutputFormat> parse_output_format(std::string_view name) {
  for (std::size_t i = 0; i < kOutputFormatNames.size(); ++i) {
    if (kOutputFormatNames[i] == name) return static_cast<OutputFormat>(i);
  }
  return std::nullopt;
}

// Whether programs read it as JSON (errors then go to stdout as JSON too).
constexpr bool is_json(OutputFormat format) { return format == OutputFormat::json || format == OutputFormat::jsonl; }

}  // namespace gpuwatch
