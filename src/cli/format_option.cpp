#include "cli/format_option.h"

#include <algorithm>
#include <memory>

namespace gpuwatch::cli {

CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& format, std::vector<FormatWord> words,
                               const std::string& help, bool required) {
  std::vector<std::string> allowed;
  for (const FormatWord& w : words) allowed.emplace_back(w.word);
  // CLI11 keeps the word as given (wants_json reads it back); the format is
  // set from it once the word has passed the check.
  auto given = std::make_shared<std::string>();
  if (!required) {
    const auto it = std::find_if(words.begin(), words.end(), [&](const FormatWord& w) { return w.format == format; });
    if (it != words.end()) *given = it->word;
  }
  CLI::Option* opt = cmd.add_option("--format", *given, help)->check(CLI::IsMember(allowed));
  opt->each([given, words = std::move(words), &format](const std::string& word) {
    for (const FormatWord& w : words) {
      if (w.word == word) format = w.format;
    }
  });
  if (required) {
    opt->required();
  } else {
    opt->capture_default_str();
  }
  return opt;
}

CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& format, std::initializer_list<OutputFormat> formats,
                               const std::string& help, bool required) {
  std::vector<FormatWord> words;
  for (OutputFormat f : formats) words.push_back({output_format_name(f), f});
  return add_format_option(cmd, format, std::move(words), help, required);
}

}  // namespace gpuwatch::cli
