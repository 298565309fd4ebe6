// Seed 003's model suite: a simple CNN at batch 16/32/64 and a ResNet-18-like
// network at 8/16/32, each trained and run for inference.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::bench_torch {

enum class Workload { training, inference };
enum class Model { simple_cnn, resnet18 };

struct TestSpec {
  std::string name;  // "train_simple_cnn_bs32": unique within a run
  Workload workload;
  Model model;
  int batch_size;
  std::string seed_summary;  // seed 003's description of this test
};

std::vector<TestSpec> seed_suite();

std::string_view workload_name(Workload workload);  // protocol's test_type
std::string_view model_name(Model model);           // protocol's model_name

// True when no prefix is given or the name starts with one of them.
bool selected(std::string_view test_name, const std::vector<std::string>& prefixes);

}  // namespace gpuwatch::bench_torch
