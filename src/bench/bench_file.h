// A `gpuwatch bench` result file read back, for `bench compare`: our own
// files, and seed 003's (the fields the two share).
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

struct BenchFileTest {
  std::string test_name;
  std::string test_type;
  std::optional<int> gpu;
  bool success = false;
  // The value the test is judged by (higher is better), and its unit.
  std::optional<double> value;
  std::string unit;  // "TFLOP/s", "GB/s", "samples/s"
  std::optional<double> latency_us;
  std::optional<double> percent_of_peak;
  std::optional<double> peak_gpu_utilization_percent;
  std::optional<double> avg_power_watts;
};

struct BenchFile {
  std::string path;
  std::string hostname;
  std::vector<std::string> gpu_names;
  std::vector<BenchFileTest> tests;
};

class BenchFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

BenchFile parse_bench_file(std::string_view text, const std::string& path);
BenchFile read_bench_file(const std::filesystem::path& path);  // throws BenchFileError

}  // namespace gpuwatch
