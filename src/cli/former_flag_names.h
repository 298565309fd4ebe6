// Flags renamed so that one word names one concept ("interval" for a period,
// docs/report-json.md "Flags renamed with it"): the former name is still
// accepted, with the same check, and hidden from --help, so that the scripts
// written for it keep working.
#pragma once

#include <string>
#include <utility>

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

template <class T>
void add_former_flag_name(CLI::App& cmd, std::string former_name, T& value, CLI::Validator check) {
  // CLI11 names a hidden option "" in its errors: the check names it itself.
  CLI::Validator named(
      [check = std::move(check), former_name](std::string& text) {
        std::string problem = check(text);
        if (!problem.empty()) throw CLI::ValidationError(former_name, problem);
        return problem;
      },
      "");
  cmd.add_option(former_name, value)->check(std::move(named))->group("");
}

}  // namespace gpuwatch::cli
