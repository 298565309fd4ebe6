// `record --advise`: the advisor's rules over the last minute of the run as
// it goes, printed when the advisories change, `--on-underuse kill`: a run
// that keeps wasting its GPUs is stopped, and `--on-hang`: a hung job is
// stopped or signalled.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor/advisor.h"
#include "analysis/advisor/underuse_rules.h"
#include "record/hang_action.h"
#include "record/peak_history.h"
#include "store/store.h"

namespace gpuwatch {

struct LiveAdvisorOptions {
  AdvisorConfig config;
  double check_interval_s = 10;
  bool print = true;                    // --advise: print changes on stderr
  std::optional<double> kill_after_s;   // --on-underuse kill --after S
  UnderuseRules kill_rules;             // --rules: which underuse advisories act
  // --on-hang: kill acts once job.hung has held hang_kill_after_s; signal
  // acts once each time job.hung appears.
  std::optional<HangAction> on_hang;
  double hang_kill_after_s = 0;
  std::FILE* out = stderr;
};

class LiveAdvisor {
 public:
  // on_underuse: once, when an underuse advisory that kill_rules name has
  // held for kill_after_s. on_hang: as options.on_hang says.
  LiveAdvisor(LiveAdvisorOptions options, const RunInfo& run, const std::vector<DeviceInfo>& devices,
              std::function<void(const std::string& reason)> on_underuse,
              std::function<void(const std::string& reason)> on_hang = {});

  void on_device_sample(const DeviceSample& sample);
  void on_host_sample(const HostSample& sample);
  void on_event(const Event& event);
  // Evaluates when a check is due. Returns the changes, to be stored as events.
  std::vector<Event> on_tick(Timestamp time);
  // The memory points kept for the epochs' peaks (bounded: tests).
  [[nodiscard]] std::size_t kept_peak_points() const { return peaks_.point_count(); }

 private:
  void trim_window(std::int64_t now_mono_ns);
  RunData with_kept_events(RunData data) const;
  void act_on_underuse(std::int64_t now_ns, const RunReport& report);
  void act_on_hang(std::int64_t now_ns);

  // Since when a verdict has held, for the actions that wait for it.
  struct HeldSince {
    std::optional<std::int64_t> since_ns;
    bool acted = false;
    void update(bool holds, std::int64_t now_ns) {
      if (!holds) since_ns.reset();
      else if (!since_ns) since_ns = now_ns;
    }
    [[nodiscard]] double held_s(std::int64_t now_ns) const {
      return since_ns ? static_cast<double>(now_ns - *since_ns) / 1e9 : 0;
    }
  };

  LiveAdvisorOptions options_;
  std::function<void(const std::string&)> on_underuse_;
  std::function<void(const std::string&)> on_hang_;
  RunData window_;   // the last advisor_span_s() of samples and events
  PeakHistory peaks_;  // the whole run's memory peaks and epoch events, bounded
  std::optional<Event> model_params_;  // sent once at start; kept past the window
  std::optional<Event> job_gpus_;      // the latest decision; kept past the window
  JobGpus judged_;                     // the job's GPUs at the last check
  std::int64_t start_mono_ns_ = 0;
  std::int64_t last_check_mono_ns_ = 0;
  HeldSince underuse_;
  HeldSince hung_;
  std::vector<Advisory> current_;
};

}  // namespace gpuwatch
