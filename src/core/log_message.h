// A stored "log" annotation's message, "loss=0.53 lr=0.001", read back. The
// recorder writes it (annotate/annotation.h, format_log_values()) and reads
// its own held-back messages to sum step timing; analysis and render read the
// stored ones: one reader for all of them.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuwatch {

// The whole of `text` as a finite number ("3", "0.53", "1e-3"); nullopt otherwise.
std::optional<double> parse_finite_number(std::string_view text);

// "loss=0.53 lr=0.001" -> {("loss", 0.53), ("lr", 0.001)}; malformed pairs
// (no name, not a finite number) are skipped. The names view `message`.
std::vector<std::pair<std::string_view, double>> parse_log_message(std::string_view message);

}  // namespace gpuwatch
