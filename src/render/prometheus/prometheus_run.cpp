#include "render/prometheus/prometheus_run.h"

#include <charconv>
#include <cmath>

#include "render/prometheus/prometheus_write.h"

namespace gpuwatch {

namespace prometheus_text {
namespace {

// A gauge family of one sample, left out when the value is unknown.
void single(std::string& out, std::string_view name, std::string_view help, const PromLabels& labels,
            std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return;
  family_header(out, name, help, false);
  write_sample(out, name, labels, *value);
}

}  // namespace
}  // namespace prometheus_text

std::optional<double> epoch_number(std::string_view epoch) {
  const char* first = epoch.data();
  const char* last = epoch.data() + epoch.size();
  while (first != last && *first == ' ') ++first;
  double v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc{} || end == first || !std::isfinite(v)) return std::nullopt;
  return v;
}

void append_run_families(std::string& out, const RunStatusReport& run, const std::string& hostname) {
  using namespace prometheus_text;
  // run_id tells one run from the next under the same name.
  const PromLabels labels{{"run_id", run.run.id}, {"name", run.run.name}, {"hostname", hostname}};
  family_header(out, "gpuwatch_run_info", "The run `gpuwatch record` is recording on this machine (always 1)", false);
  write_sample(out, "gpuwatch_run_info", labels, 1);

  if (!run.gpus.empty()) {
    family_header(out, "gpuwatch_run_gpu",
                  "A GPU the recording run uses (always 1): join on gpu and hostname to put the run's name on "
                  "the GPU series",
                  false);
    for (const GpuStatus& g : run.gpus) {
      if (!g.job) continue;
      PromLabels gpu = labels;
      gpu.emplace_back("gpu", std::to_string(g.index));
      write_sample(out, "gpuwatch_run_gpu", gpu, 1);
    }
  }
  single(out, "gpuwatch_run_elapsed_seconds", "Seconds since the run started, to its latest sample", labels, run.age_s);
  const std::optional<double> step =
      run.progress_now.step ? std::optional<double>(static_cast<double>(*run.progress_now.step)) : std::nullopt;
  single(out, "gpuwatch_run_step", "The training's step, as last annotated", labels, step);
  single(out, "gpuwatch_run_epoch", "The training's epoch, as last annotated (its leading number)", labels,
         run.progress_now.epoch ? epoch_number(*run.progress_now.epoch) : std::nullopt);
  single(out, "gpuwatch_run_loss", "The training's loss, as last annotated", labels, run.progress_now.loss);
  single(out, "gpuwatch_run_steps_per_second", "Training steps per second over the advisor's window", labels,
         run.steps_per_second);

  // Every severity, 0 included, so that an alert on "> 0" sees it clear.
  family_header(out, "gpuwatch_run_advisories", "How many advisories the advisor gives the run now, by severity",
                false);
  for (const Severity severity : {Severity::Info, Severity::Warning, Severity::Critical}) {
    double count = 0;
    for (const Advisory& a : run.advisories) count += a.severity == severity ? 1 : 0;
    PromLabels by_severity = labels;
    by_severity.emplace_back("severity", std::string(to_string(severity)));
    write_sample(out, "gpuwatch_run_advisories", by_severity, count);
  }
  if (run.advisories.empty()) return;
  family_header(out, "gpuwatch_run_advisory",
                "An advisory the advisor gives the run now (always 1; gone when it clears), by id, severity and "
                "GPU (empty: the run as a whole)",
                false);
  for (const Advisory& a : run.advisories) {
    PromLabels advisory = labels;
    advisory.emplace_back("id", a.id);
    advisory.emplace_back("severity", std::string(to_string(a.severity)));
    advisory.emplace_back("gpu", a.device_index ? std::to_string(*a.device_index) : std::string());
    write_sample(out, "gpuwatch_run_advisory", advisory, 1);
  }
}

}  // namespace gpuwatch
