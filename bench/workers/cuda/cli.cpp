#include "cli.h"

#include <algorithm>
#include <charconv>

namespace gpuwatch::bench_cuda {

namespace {

constexpr std::string_view kP2pPlaceholder = "p2p_<from>_<to>";

// p2p names depend on the GPUs found, so any "p2p_..." entry may name one.
bool may_name_p2p_test(std::string_view entry) {
  constexpr std::string_view kPrefix = "p2p_";
  return kPrefix.starts_with(entry) || entry.starts_with(kPrefix);
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    parts.emplace_back(text.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return parts;
    begin = comma + 1;
  }
}

std::optional<int> parse_index(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

// "all" or distinct non-negative indices separated by commas.
std::optional<std::string> parse_gpus(std::string_view text, Options& options) {
  if (text == "all") {
    options.gpus.reset();
    return std::nullopt;
  }
  std::vector<int> gpus;
  for (const std::string& part : split_commas(text)) {
    const std::optional<int> index = parse_index(part);
    if (!index) return "--gpus: '" + part + "' is not a GPU index (expected \"all\" or a list like 0,1)";
    if (std::find(gpus.begin(), gpus.end(), *index) != gpus.end()) {
      return "--gpus: GPU " + part + " is listed twice";
    }
    gpus.push_back(*index);
  }
  options.gpus = std::move(gpus);
  return std::nullopt;
}

// Every name a --tests entry may be a prefix of, for all sizes and GPUs.
bool names_some_test(std::string_view entry) {
  const auto starts = [&](std::string_view name) { return name.substr(0, entry.size()) == entry; };
  for (const Family family :
       {Family::matmul, Family::membw, Family::host_device, Family::launch, Family::p2p}) {
    if (entry == family_keyword(family)) return true;
  }
  for (const bool quick : {false, true}) {
    Options sized;
    sized.quick = quick;
    for (const TestEntry& test : per_gpu_tests(matmul_size(sized))) {
      if (starts(test.name)) return true;
    }
    if (starts(all_gpus_test_name(matmul_size(sized)))) return true;
  }
  return may_name_p2p_test(entry);
}

std::optional<std::string> parse_tests(std::string_view text, Options& options) {
  std::vector<std::string> entries = split_commas(text);
  for (const std::string& entry : entries) {
    if (entry.empty() || !names_some_test(entry)) {
      return "--tests: '" + entry + "' names no test (see --list)";
    }
  }
  options.tests = std::move(entries);
  return std::nullopt;
}

ParsedArgs usage_error(std::string message) {
  ParsedArgs parsed;
  parsed.action = Action::usage_error;
  parsed.error = std::move(message);
  return parsed;
}

}  // namespace

ParsedArgs parse_args(const std::vector<std::string>& args) {
  ParsedArgs parsed;
  bool list = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view flag = args[i];
    std::optional<std::string_view> value;
    if (const std::size_t equals = flag.find('='); flag.starts_with("--") && equals != std::string_view::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
    }
    const bool takes_value = flag == "--gpus" || flag == "--tests";
    if (!takes_value && value) return usage_error(std::string(flag) + " takes no value");
    if (takes_value && !value) {
      if (i + 1 >= args.size()) return usage_error(std::string(flag) + " needs a value");
      value = args[++i];
    }
    std::optional<std::string> error;
    if (flag == "--help" || flag == "-h") {
      parsed.action = Action::help;
      return parsed;
    } else if (flag == "--quick") {
      parsed.options.quick = true;
    } else if (flag == "--list") {
      list = true;
    } else if (flag == "--gpus") {
      error = parse_gpus(*value, parsed.options);
    } else if (flag == "--tests") {
      error = parse_tests(*value, parsed.options);
    } else {
      return usage_error("unknown argument '" + args[i] + "'");
    }
    if (error) return usage_error(*error);
  }
  if (list) parsed.action = Action::list;
  return parsed;
}

std::string usage_text() {
  return "Usage: gpuwatch-bench-cuda [--quick] [--gpus all|LIST] [--tests LIST] [--list] [--help]\n"
         "\n"
         "CUDA micro-benchmarks for gpuwatch bench: cuBLASLt matmul throughput, device memory\n"
         "bandwidth, host<->device bandwidth, kernel launch latency, and with several GPUs an\n"
         "all-GPU matmul and peer-to-peer copies. Writes one JSON object per line on stdout\n"
         "(docs/bench-workers.md describes them) and progress on stderr.\n"
         "\n"
         "  --quick        smaller matmuls (4096) and 0.3 s per test instead of 1 s\n"
         "  --gpus LIST    \"all\" (default) or device indices, e.g. 0,1 (PCI bus order)\n"
         "  --tests LIST   only these tests: family keywords (matmul, membw, h2d, launch,\n"
         "                 p2p) or prefixes of test names, e.g. matmul_bf16,membw_copy\n"
         "  --list         print the test names and exit\n"
         "  --help         print this and exit\n";
}

int matmul_size(const Options& options) { return options.quick ? 4096 : 8192; }

double target_seconds(const Options& options) { return options.quick ? 0.3 : 1.0; }

bool test_selected(const Options& options, Family family, std::string_view test_name) {
  if (options.tests.empty()) return true;
  return std::any_of(options.tests.begin(), options.tests.end(), [&](const std::string& entry) {
    return entry == family_keyword(family) || test_name.starts_with(entry);
  });
}

std::vector<std::string> listed_test_names(const Options& options) {
  std::vector<std::string> names;
  for (const TestEntry& test : per_gpu_tests(matmul_size(options))) {
    if (test_selected(options, test.family, test.name)) names.push_back(test.name);
  }
  const std::string all_gpus = all_gpus_test_name(matmul_size(options));
  if (test_selected(options, Family::matmul, all_gpus)) names.push_back(all_gpus);
  // The placeholder stands for every pair; a prefix like "p2p_0" still lists it.
  const bool p2p = std::any_of(options.tests.begin(), options.tests.end(),
                               [](const std::string& entry) { return may_name_p2p_test(entry); });
  if (options.tests.empty() || p2p) names.emplace_back(kP2pPlaceholder);
  return names;
}

}  // namespace gpuwatch::bench_cuda
