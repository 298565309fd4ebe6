// Checks of the flags that take a number, with one message per flag in its
// own terms: "--interval: expected seconds between 0.01 and 86400 (e.g. 0.5),
// got 'abc'". CLI11's own Range says "Value abc not in range 0.010000 to
// 86400.000000", and PositiveNumber prints DBL_MAX's 309 digits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

struct NumberRule {
  // What the number counts, as the message names it: "seconds", "a GPU
  // index", "runs"; whole numbers read "a whole number of <what>" unless
  // `what` already starts with "a ".
  std::string what;
  double min = 0;
  std::optional<double> max;  // none: no upper bound but the type's
  bool whole = false;         // a whole number (no '.', no exponent)
  std::string example;        // a value that is accepted, shown as "(e.g. 0.5)"
};

// Why `text` breaks `rule` ("expected ..., got 'abc'"), or "" when it keeps
// it. Without the flag's name: CLI11 puts "--flag: " in front.
std::string number_problem(const NumberRule& rule, std::string_view text);

// The validator for add_option(...)->check(...); its description, shown in
// --help after the type, is the range: "[0.01 - 86400]" or ">= 1".
CLI::Validator number_check(const NumberRule& rule);

// Shorthands for the usual kinds.
inline CLI::Validator seconds_check(double min, double max, std::string example) {
  return number_check({"seconds", min, max, false, std::move(example)});
}
inline CLI::Validator whole_check(std::string what, double min, std::optional<double> max, std::string example) {
  return number_check({std::move(what), min, max, true, std::move(example)});
}

}  // namespace gpuwatch::cli
