#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/suggest.h"
#include "render/output_format.h"

namespace gpuwatch::cli {

namespace {

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); });
}

std::string unknown_command(CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (CLI::App* s : subcommands_of(app)) names.push_back(s->get_name());
  const std::string where = app.get_parent() ? fmt::format(" for {}", app.get_name()) : "";
  if (auto best = closest_match(word, names)) {
    return fmt::format("unknown command '{}'{}; did you mean '{}'?", word, where, *best);
  }
  return fmt::format("unknown command '{}'{} (commands: {})", word, where, fmt::join(names, ", "));
}

std::string unknown_option(CLI::App& app, const std::string& word) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  const std::string where = app.get_parent() ? fmt::format(" for {}", app.get_name()) : "";
  if (auto best = closest_match(word, names)) {
    return fmt::format("unknown option '{}'{}; did you mean '{}'?", word, where, *best);
  }
  return fmt::format("unknown option '{}'{} (see gpuwatch {}--help)", word, where,
                     app.get_parent() ? app.get_name() + " " : "");
}

bool looks_like_number(std::string_view s) {
  return s.size() > 1 && s.front() == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
}

}  // namespace

std::optional<std::string> diagnose_usage(CLI::App& app, std::span<const std::string> args) {
  CLI::App* current = &app;
  bool command_named = false;
  bool after_positional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return std::nullopt;  // the rest is the recorded command's
    if (word.size() > 1 && word.front() == '-' && !looks_like_number(word)) {
      const std::string name = word.substr(0, word.find('='));
      const CLI::Option* opt = current->get_option_no_throw(name);
      if (opt == nullptr) {
        if (name == "--help" || name == "-h") continue;
        std::string message = unknown_option(*current, name);
        if (after_positional) message += "; if it is the command's own, put the command after --";
        return message;
      }
      // An option's value is no command and no option, even when it looks like one.
      if (name.size() == word.size() && opt->get_expected_min() > 0 && i + 1 < args.size()) ++i;
      continue;
    }
    const auto subs = subcommands_of(*current);
    const auto it = std::find_if(subs.begin(), subs.end(), [&](CLI::App* s) { return s->check_name(word); });
    if (it != subs.end()) {
      current = *it;
      command_named = true;
      continue;
    }
    // A word where a command is required: the app itself, or a command
    // that is only a group of commands (bench takes one, or its own run).
    if (!command_named || (current->get_require_subcommand_min() > 0)) return unknown_command(*current, word);
    after_positional = true;  // a positional argument; CLI11 judges those
  }
  return std::nullopt;
}

bool wants_json(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands()) {
    if (const CLI::Option* json = sub->get_option_no_throw("--json"); json && json->count() > 0) return true;
    if (const CLI::Option* format = sub->get_option_no_throw("--format"); format && format->count() > 0) {
      // sample's "json" is jsonl; its "table" is no format's name.
      const std::optional<OutputFormat> value = parse_output_format(format->as<std::string>());
      if (value && is_json(*value)) return true;
    }
    if (wants_json(*sub)) return true;
  }
  return false;
}

}  // namespace gpuwatch::cli
