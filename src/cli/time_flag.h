// Flags that take a time: --since 2h / 2026-11-01, --older-than 30d.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "store/run_filter.h"

namespace gpuwatch::cli {

// Validators, so that a bad value is a usage error (exit 2) at parse time.
inline CLI::Validator duration_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return parse_duration_ns(text) ? std::string() : "expected a duration like 90s, 15m, 2h, 30d or 2w, not '" + text + "'";
      },
      "DURATION");
}

inline CLI::Validator time_bound_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return parse_time_bound_ns(text, 0) ? std::string()
                                            : "expected a duration like 2h or 30d, or a date like 2026-11-01, not '" +
                                                  text + "'";
      },
      "WHEN");
}

}  // namespace gpuwatch::cli
