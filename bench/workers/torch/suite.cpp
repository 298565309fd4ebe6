#include "suite.h"

#include <algorithm>

namespace gpuwatch::bench_torch {

namespace {

struct SizeWords {
  int batch_size;
  const char* summary;
};

// The seed's three batch sizes per model, smallest first, with its words.
constexpr SizeWords kCnnTraining[] = {
    {16, "Small batch CNN training - Tests GPU efficiency with limited parallelism and memory usage"},
    {32, "Medium batch CNN training - Balanced test of GPU compute and memory bandwidth"},
    {64, "Large batch CNN training - Tests GPU memory capacity and high-throughput compute"},
};
constexpr SizeWords kResnetTraining[] = {
    {8, "Small batch ResNet training - Tests GPU with complex operations and moderate memory usage"},
    {16, "Medium batch ResNet training - Balanced complex compute with memory efficiency"},
    {32, "Large batch ResNet training - Stress test for GPU memory and complex operations"},
};
constexpr SizeWords kCnnInference[] = {
    {16, "Small batch CNN inference - Tests low-latency inference scenarios"},
    {32, "Medium batch CNN inference - Balanced inference throughput testing"},
    {64, "Large batch CNN inference - High-throughput inference performance test"},
};
constexpr SizeWords kResnetInference[] = {
    {8, "Small batch ResNet inference - Complex model low-latency inference test"},
    {16, "Medium batch ResNet inference - Balanced complex inference workload"},
    {32, "Large batch ResNet inference - High-throughput complex model inference"},
};

template <std::size_t N>
void add(std::vector<TestSpec>& suite, Workload workload, Model model, const SizeWords (&sizes)[N]) {
  const std::string prefix = workload == Workload::training ? "train_" : "infer_";
  for (const SizeWords& size : sizes) {
    suite.push_back({prefix + std::string(model_name(model)) + "_bs" + std::to_string(size.batch_size),
                     workload, model, size.batch_size, size.summary});
  }
}

}  // namespace

std::vector<TestSpec> seed_suite() {
  std::vector<TestSpec> suite;
  add(suite, Workload::training, Model::simple_cnn, kCnnTraining);
  add(suite, Workload::training, Model::resnet18, kResnetTraining);
  add(suite, Workload::inference, Model::simple_cnn, kCnnInference);
  add(suite, Workload::inference, Model::resnet18, kResnetInference);
  return suite;
}

std::string_view workload_name(Workload workload) {
  return workload == Workload::training ? "training" : "inference";
}

std::string_view model_name(Model model) {
  return model == Model::simple_cnn ? "simple_cnn" : "resnet18";
}

bool selected(std::string_view test_name, const std::vector<std::string>& prefixes) {
  return prefixes.empty() || std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& prefix) {
           return test_name.substr(0, prefix.size()) == prefix;
         });
}

}  // namespace gpuwatch::bench_torch
