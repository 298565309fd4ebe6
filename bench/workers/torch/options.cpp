#include "options.h"

#include <charconv>
#include <limits>

namespace gpuwatch::bench_torch {

namespace {

// Seed 003's defaults (3 epochs of 200 batches); --quick shortens them. On a
// CPU the quick suite is cut further so that CI runs all twelve tests in
// seconds, and the ResNet sees 64x64 images instead of 224x224.
struct Defaults {
  int num_epochs;
  int num_batches;
  int warmup;
  int resnet_image_size;
};
constexpr Defaults kCudaFull{3, 200, 5, 224};
constexpr Defaults kCudaQuick{1, 20, 5, 224};
constexpr Defaults kCpuFull{3, 200, 2, 64};
constexpr Defaults kCpuQuick{1, 5, 2, 64};

std::optional<int> parse_int(std::string_view text, int minimum) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < minimum) return std::nullopt;
  return value;
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    if (!part.empty()) parts.emplace_back(part);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

class Parser {
 public:
  explicit Parser(const std::vector<std::string_view>& args) : args_(args) {}

  ParsedOptions run() {
    while (index_ < args_.size() && !result_.error) step();
    return result_;
  }

 private:
  void fail(std::string message) {
    if (!result_.error) result_.error = std::move(message) + " (see --help)";
  }

  // The value of --flag VALUE or --flag=VALUE.
  std::optional<std::string_view> value() {
    if (inline_value_) return inline_value_;
    if (index_ >= args_.size()) {
      fail("option " + std::string(flag_) + " needs a value");
      return std::nullopt;
    }
    return args_[index_++];
  }

  void integer(std::optional<int>& target, int minimum) {
    const auto text = value();
    if (!text) return;
    const auto parsed = parse_int(*text, minimum);
    if (!parsed) {
      fail("option " + std::string(flag_) + " wants an integer >= " + std::to_string(minimum) + ", not '" +
           std::string(*text) + "'");
      return;
    }
    target = parsed;
  }

  void integer(int& target, int minimum) {
    std::optional<int> parsed;
    integer(parsed, minimum);
    if (parsed) target = *parsed;
  }

  void choice(std::string& target, std::string_view first, std::string_view second) {
    const auto text = value();
    if (!text) return;
    if (*text != first && *text != second) {
      fail("option " + std::string(flag_) + " wants " + std::string(first) + " or " + std::string(second) +
           ", not '" + std::string(*text) + "'");
      return;
    }
    target = std::string(*text);
  }

  void flag_without_value(bool& target) {
    if (inline_value_) {
      fail("option " + std::string(flag_) + " takes no value");
      return;
    }
    target = true;
  }

  void step() {
    std::string_view arg = args_[index_++];
    inline_value_.reset();
    if (const std::size_t equals = arg.find('='); arg.substr(0, 2) == "--" && equals != std::string_view::npos) {
      inline_value_ = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    }
    flag_ = arg;
    Options& o = result_.options;
    if (arg == "--device") {
      std::string device;
      choice(device, "cuda", "cpu");
      if (!device.empty()) o.device = device;
    } else if (arg == "--gpu") {
      integer(o.gpu, 0);
    } else if (arg == "--num-epochs") {
      integer(o.num_epochs, 1);
    } else if (arg == "--num-batches") {
      integer(o.num_batches, 1);
    } else if (arg == "--warmup") {
      integer(o.warmup, 0);
    } else if (arg == "--num-workers") {
      integer(o.num_workers, 0);
    } else if (arg == "--resnet-image-size") {
      integer(o.resnet_image_size, 32);
    } else if (arg == "--amp-dtype") {
      choice(o.amp_dtype, "bf16", "fp16");
    } else if (arg == "--tests") {
      if (const auto text = value()) o.tests = split_commas(*text);
    } else if (arg == "--quick") {
      flag_without_value(o.quick);
    } else if (arg == "--amp") {
      flag_without_value(o.amp);
    } else if (arg == "--channels-last") {
      flag_without_value(o.channels_last);
    } else if (arg == "--list") {
      flag_without_value(o.list);
    } else if (arg == "--help" || arg == "-h") {
      flag_without_value(o.help);
    } else {
      fail("unknown option '" + std::string(arg) + "'");
    }
  }

  const std::vector<std::string_view>& args_;
  std::size_t index_ = 0;
  std::string_view flag_;
  std::optional<std::string_view> inline_value_;
  ParsedOptions result_;
};

}  // namespace

ParsedOptions parse_options(const std::vector<std::string_view>& args) { return Parser(args).run(); }

std::string usage_text() {
  return R"(Usage: gpuwatch-bench-torch [options]

Seed 003's model suite in libtorch: a simple CNN (batch 16, 32, 64) and a
ResNet-18-like network (batch 8, 16, 32), trained (forward, backward, SGD step)
and run for inference, on synthetic data. Writes JSON lines on stdout (the
worker protocol of `gpuwatch bench`) and progress on stderr.

Options:
  --device cuda|cpu        where to run (default: cuda when available)
  --gpu N                  CUDA device index (default 0)
  --num-epochs N           timed iterations = epochs x batches (default 3)
  --num-batches N          batches per epoch (default 200)
  --warmup N               untimed iterations before each test (default 5; cpu 2)
  --num-workers N          threads making batches; 0 = the main thread (default 0)
  --quick                  1 epoch of 20 batches (cpu: 5 batches, 2 warm-up)
  --amp                    autocast on CUDA (see --amp-dtype); fails the tests on cpu
  --amp-dtype bf16|fp16    autocast type (default bf16; no loss scaling either way)
  --channels-last          model and inputs in channels-last memory format
  --resnet-image-size N    ResNet input side (default 224 on cuda, 64 on cpu)
  --tests LIST             comma-separated test-name prefixes, e.g. train_,infer_resnet18
  --list                   print the selected tests as JSON lines and exit
  -h, --help               this text

Exit status: 0 when every test ran (failures are in the results), 1 when the
worker cannot run (no CUDA device), 2 for bad options.
)";
}

RunConfig resolve(const Options& options, bool cuda) {
  const Defaults& d = cuda ? (options.quick ? kCudaQuick : kCudaFull) : (options.quick ? kCpuQuick : kCpuFull);
  RunConfig config;
  config.cuda = cuda;
  config.gpu = options.gpu;
  config.num_epochs = options.num_epochs.value_or(d.num_epochs);
  config.num_batches = options.num_batches.value_or(d.num_batches);
  config.warmup = options.warmup.value_or(d.warmup);
  config.num_workers = options.num_workers;
  config.amp = options.amp;
  config.amp_dtype = options.amp_dtype;
  config.channels_last = options.channels_last;
  config.resnet_image_size = options.resnet_image_size.value_or(d.resnet_image_size);
  return config;
}

}  // namespace gpuwatch::bench_torch
