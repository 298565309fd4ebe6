#include "backends/procfs/cgroup_parse.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "core/lines.h"

namespace gpuwatch {
namespace {

// Bounds on what a field may hold, so that a garbled file makes no field of
// a page's worth: Slurm's ids are 32-bit numbers, container ids 64 hex
// characters (containerd and CRI-O ids too), pod UIDs 36 characters.
constexpr std::size_t kMaxNumberChars = 20;
constexpr std::size_t kMaxStepChars = 32;
constexpr std::size_t kMinContainerIdChars = 12;
constexpr std::size_t kMaxContainerIdChars = 64;
constexpr std::size_t kMaxPodUidChars = 64;
constexpr std::size_t kMaxUnitChars = 256;

bool all_of_chars(std::string_view s, bool (*ok)(char)) { return std::all_of(s.begin(), s.end(), ok); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_step_char(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_uid_char(char c) { return is_hex(c) || c == '-' || c == '_'; }
bool is_unit_char(char c) { return static_cast<unsigned char>(c) > 0x20 && c != 0x7f; }

bool slurm_number(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNumberChars && all_of_chars(s, is_digit);
}

bool container_id(std::string_view s) {
  return s.size() >= kMinContainerIdChars && s.size() <= kMaxContainerIdChars && all_of_chars(s, is_hex);
}

// "<prefix><id>.scope" -> id, or "" when the component is not that.
std::string_view scope_container_id(std::string_view component, std::string_view prefix) {
  if (!component.starts_with(prefix) || !component.ends_with(".scope")) return {};
  const auto id = component.substr(prefix.size(), component.size() - prefix.size() - 6);
  return container_id(id) ? id : std::string_view{};
}

// What one cgroup path says, gathered component by component.
class CgroupPathScan {
 public:
  void component(std::string_view c) {
    if (c.starts_with("slurm")) slurm_ = true;  // slurm, slurm_<node>, slurmstepd.scope
    if (slurm_component(c) || kube_component(c) || container_component(c)) {
      previous_ = c;
      return;
    }
    if ((c.ends_with(".service") || c.ends_with(".scope")) && c.size() <= kMaxUnitChars &&
        all_of_chars(c, is_unit_char)) {
      found_.unit = std::string(c);  // the innermost unit wins
    }
    previous_ = c;
  }
  ProcessAttribution finish() {
    if (found_.pod_uid.empty()) found_.qos.clear();  // a QoS level with no pod names nobody
    else if (found_.qos.empty()) found_.qos = "Guaranteed";  // right under kubepods
    return std::move(found_);
  }

 private:
  bool slurm_component(std::string_view c) {
    if (c.starts_with("job_") && slurm_number(c.substr(4))) {
      // Outside a Slurm folder (a cgroup namespace hides it), only a step
      // below makes it Slurm's.
      pending_job_ = c.substr(4);
      if (slurm_) found_.job = std::string(pending_job_);
      return true;
    }
    const auto step = c.substr(std::min<std::size_t>(5, c.size()));
    if (c.starts_with("step_") && !pending_job_.empty() && !step.empty() && step.size() <= kMaxStepChars &&
        all_of_chars(step, is_step_char)) {
      found_.job = std::string(pending_job_);
      found_.step = std::string(step);
      return true;
    }
    return false;
  }

  bool kube_component(std::string_view c) {
    if (c == "kubepods" || c == "kubepods.slice") {
      kube_ = true;
      return true;
    }
    if (!kube_) return false;
    if (c == "burstable" || c == "kubepods-burstable.slice") found_.qos = "Burstable";
    else if (c == "besteffort" || c == "kubepods-besteffort.slice") found_.qos = "BestEffort";
    else return pod_component(c);
    return true;
  }

  // "pod<uid>" (cgroupfs) or "kubepods[-<qos>]-pod<uid with '_'>.slice" (systemd).
  bool pod_component(std::string_view c) {
    std::string_view uid;
    if (c.starts_with("pod")) {
      uid = c.substr(3);
    } else if (const auto at = c.find("-pod"); c.starts_with("kubepods-") && c.ends_with(".slice") &&
                                               at != std::string_view::npos) {
      uid = c.substr(at + 4, c.size() - at - 4 - 6);
    }
    if (uid.empty() || uid.size() > kMaxPodUidChars || !all_of_chars(uid, is_uid_char)) return false;
    found_.pod_uid = std::string(uid);
    std::replace(found_.pod_uid.begin(), found_.pod_uid.end(), '_', '-');
    return true;
  }

  bool container_component(std::string_view c) {
    static constexpr std::pair<std::string_view, std::string_view> kScopes[] = {
        {"docker-", "docker"}, {"cri-containerd-", "containerd"}, {"crio-", "crio"}, {"libpod-", "podman"}};
    for (const auto& [prefix, runtime] : kScopes) {
      if (const auto id = scope_container_id(c, prefix); !id.empty()) return set_container(id, runtime);
    }
    // cgroupfs drivers: the bare id under "docker", or under a pod's folder
    // (the runtime is not in the path then).
    if (previous_ == "docker" && container_id(c)) return set_container(c, "docker");
    if (!found_.pod_uid.empty() && container_id(c)) return set_container(c, "");
    return false;
  }

  bool set_container(std::string_view id, std::string_view runtime) {
    found_.container = std::string(id);
    found_.runtime = std::string(runtime);
    return true;
  }

  ProcessAttribution found_;
  std::string_view pending_job_;
  std::string_view previous_;
  bool slurm_ = false;
  bool kube_ = false;
};

ProcessAttribution scan_cgroup_path(std::string_view path) {
  CgroupPathScan scan;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto c = path.substr(0, slash);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    if (!c.empty()) scan.component(c);
  }
  return scan.finish();
}

// Each group of fields comes whole from one path: a job with another path's
// step would name a step of another job.
void fill_empty(ProcessAttribution& into, ProcessAttribution&& from) {
  if (into.job.empty() && !from.job.empty()) {
    into.job = std::move(from.job);
    into.step = std::move(from.step);
  }
  if (into.container.empty() && !from.container.empty()) {
    into.container = std::move(from.container);
    into.runtime = std::move(from.runtime);
  }
  if (into.pod_uid.empty() && !from.pod_uid.empty()) {
    into.pod_uid = std::move(from.pod_uid);
    into.qos = std::move(from.qos);
  }
  if (into.unit.empty()) into.unit = std::move(from.unit);
}

struct CgroupLine {
  std::string_view path;
  bool unified = false;  // v2's "0::path"
};

std::optional<CgroupLine> split_cgroup_line(std::string_view line) {
  const auto first = line.find(':');
  if (first == std::string_view::npos || first == 0 || !all_of_chars(line.substr(0, first), is_digit)) {
    return std::nullopt;
  }
  const auto second = line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto path = line.substr(second + 1);
  if (!path.starts_with('/')) return std::nullopt;
  return CgroupLine{path, line.substr(0, second) == "0:"};
}

// NAME's value in a NUL-separated environment, if it is a Slurm number.
std::string_view slurm_variable(std::string_view environ_text, std::string_view name) {
  while (!environ_text.empty()) {
    const auto end = environ_text.find('\0');
    const auto entry = environ_text.substr(0, end);
    environ_text.remove_prefix(end == std::string_view::npos ? environ_text.size() : end + 1);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      const auto value = entry.substr(name.size() + 1);
      return slurm_number(value) ? value : std::string_view{};
    }
  }
  return {};
}

}  // namespace

ProcessAttribution parse_cgroup(std::string_view cgroup_text) {
  std::vector<CgroupLine> lines;
  while (!cgroup_text.empty()) {
    if (const auto line = split_cgroup_line(take_line(cgroup_text))) lines.push_back(*line);
  }
  std::stable_partition(lines.begin(), lines.end(), [](const CgroupLine& l) { return l.unified; });
  ProcessAttribution out;
  for (const CgroupLine& line : lines) fill_empty(out, scan_cgroup_path(line.path));
  if (!out.job.empty() || !out.container.empty() || !out.pod_uid.empty()) out.unit.clear();
  return out;
}

void apply_slurm_environment(std::string_view environ_text, ProcessAttribution& into) {
  const auto job = slurm_variable(environ_text, "SLURM_JOB_ID");
  if (!into.job.empty() && !job.empty() && job != into.job) return;
  if (into.job.empty() && !job.empty()) {
    into.job = std::string(job);
    into.step = std::string(slurm_variable(environ_text, "SLURM_STEP_ID"));
    into.unit.clear();
  }
  const auto array_job = slurm_variable(environ_text, "SLURM_ARRAY_JOB_ID");
  const auto array_task = slurm_variable(environ_text, "SLURM_ARRAY_TASK_ID");
  // Both or neither: "1233_" names no task.
  if (into.job.empty() || array_job.empty() || array_task.empty()) return;
  into.array_job = std::string(array_job);
  into.array_task = std::string(array_task);
}

std::vector<std::uint32_t> parse_status_nspid(std::string_view status_text) {
  while (!status_text.empty()) {
    auto line = take_line(status_text);
    if (!line.starts_with("NSpid:")) continue;
    line.remove_prefix(6);
    std::vector<std::uint32_t> pids;
    for (auto token = take_token(line); !token.empty(); token = take_token(line)) {
      std::uint32_t pid = 0;
      const auto [end, err] = std::from_chars(token.data(), token.data() + token.size(), pid);
      if (err != std::errc{} || end != token.data() + token.size()) return {};
      pids.push_back(pid);
    }
    return pids;
  }
  return {};
}

}  // namespace gpuwatch
