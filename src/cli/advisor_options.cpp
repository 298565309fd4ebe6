#include "cli/advisor_options.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace gpuwatch::cli {

namespace {

std::filesystem::path user_config_file() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "gpuwatch" / "advisor.conf";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".config" / "gpuwatch" / "advisor.conf";
  }
  return {};
}

}  // namespace

void add_advisor_options(CLI::App& cmd, AdvisorFlags& flags) {
  cmd.add_option("--advisor-config", flags.config_file,
                 "The advisor's thresholds (default: ~/.config/gpuwatch/advisor.conf if it exists;\n"
                 "`gpuwatch status --print-advisor-config` prints every key with its default)");
  cmd.add_option("--model-size", flags.model_size,
                 "small or large: what the memory rules expect (default: from the model_params annotation)")
      ->check(CLI::IsMember({"auto", "small", "large"}));
}

AdvisorConfig advisor_config(const AdvisorFlags& flags) {
  std::filesystem::path file = flags.config_file;
  if (file.empty()) {
    file = user_config_file();
    std::error_code ec;
    if (file.empty() || !std::filesystem::exists(file, ec)) file.clear();
  }
  AdvisorConfig config;
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(fmt::format("cannot read the advisor config {}", file.string()));
    std::ostringstream text;
    text << in.rdbuf();
    try {
      config = parse_advisor_config(text.str());
    } catch (const AdvisorConfigError& e) {
      throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
    }
  }
  if (flags.model_size == "small") config.model_size = ModelSize::Small;
  if (flags.model_size == "large") config.model_size = ModelSize::Large;
  if (flags.model_size == "auto") config.model_size = ModelSize::Auto;
  return config;
}

AdvisorChoice advisor_choice(const AdvisorFlags& flags) {
  return AdvisorChoice{advisor_config(flags), !flags.config_file.empty() || !flags.model_size.empty(), std::nullopt};
}

}  // namespace gpuwatch::cli
