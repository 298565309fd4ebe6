#include "render/top/process_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "render/units.h"

namespace gpuwatch {

std::string_view to_string(ProcessSort sort) {
  switch (sort) {
    case ProcessSort::GpuMemory: return "GPU memory";
    case ProcessSort::GpuPercent: return "GPU use";
    case ProcessSort::CpuPercent: return "CPU";
    case ProcessSort::Pid: return "pid";
  }
  return "?";
}

ProcessSort next(ProcessSort sort) {
  switch (sort) {
    case ProcessSort::GpuMemory: return ProcessSort::GpuPercent;
    case ProcessSort::GpuPercent: return ProcessSort::CpuPercent;
    case ProcessSort::CpuPercent: return ProcessSort::Pid;
    case ProcessSort::Pid: return ProcessSort::GpuMemory;
  }
  return ProcessSort::GpuMemory;
}

namespace {

std::optional<double> sort_key(const TopProcess& p, ProcessSort sort) {
  switch (sort) {
    case ProcessSort::GpuMemory:
      return p.gpu_memory_bytes ? std::optional<double>(static_cast<double>(*p.gpu_memory_bytes)) : std::nullopt;
    case ProcessSort::GpuPercent: return p.gpu_percent;
    case ProcessSort::CpuPercent: return p.cpu_percent;
    case ProcessSort::Pid: return std::nullopt;
  }
  return std::nullopt;
}

std::string or_dash(const std::optional<std::string>& s) { return s.value_or("–"); }

// "/opt/conda/bin/python train.py" as "python train.py": the interpreter's
// directory takes the columns the script's arguments need.
std::string shown_command(const std::string& command) {
  const auto first_space = command.find(' ');
  const auto program_end = first_space == std::string::npos ? command.size() : first_space;
  const auto slash = command.rfind('/', program_end == 0 ? 0 : program_end - 1);
  if (slash == std::string::npos || command.starts_with('[')) return command;
  return command.substr(slash + 1);
}

// The owner column (OWNER: Slurm job, container, pod or unit) only where a
// process has one: a workstation's table keeps its width for the command.
constexpr std::size_t kOwnerColumns = 14;
bool any_owner(const TopView& view) {
  return std::any_of(view.processes.begin(), view.processes.end(),
                     [](const TopProcess& p) { return !p.attribution.empty(); });
}

std::string command_cell(const TopProcess& p) {
  if (!p.command.empty()) return shown_command(p.command);
  // The driver's pids are the host's; inside a container's PID namespace
  // they are not in /proc, which does not mean they exited.
  return p.other_pid_namespace ? "(other PID namespace)" : "(not in /proc here)";
}

void add_process_rows(std::vector<ScreenLine>& out, const TopView& view, std::size_t width, std::size_t rows) {
  const std::size_t selected = std::min(view.selected, view.processes.size() - 1);
  const std::size_t first = selected >= rows ? selected - rows + 1 : 0;
  const bool owners = any_owner(view);
  for (std::size_t i = first; i < view.processes.size() && i < first + rows; ++i) {
    const TopProcess& p = view.processes[i];
    const std::string user = p.user.empty() ? "–" : shorten(p.user, 9);
    const std::string owner = attribution_text(p.attribution);
    const std::string text = fmt::format(
        "{:>7} {} {:>3} {} {} {} {} {}{}", p.pid, align_left(user, 9), p.gpu,
        align_right(p.gpu_memory_bytes ? human_bytes(static_cast<double>(*p.gpu_memory_bytes)) : "–", 9),
        align_right(or_dash(p.gpu_percent ? std::optional(fmt::format("{:.0f}", *p.gpu_percent)) : std::nullopt), 4),
        align_right(or_dash(p.cpu_percent ? std::optional(fmt::format("{:.1f}", *p.cpu_percent)) : std::nullopt), 6),
        align_right(p.rss_bytes ? human_bytes(static_cast<double>(*p.rss_bytes)) : "–", 9),
        owners ? align_left(owner.empty() ? "–" : shorten(owner, kOwnerColumns), kOwnerColumns) + " " : "",
        command_cell(p));
    ScreenLine line(text, i == selected ? Style::Selected : Style::Normal);
    if (i == selected) line.pad_to(width, Style::Selected);
    out.push_back(std::move(line));
  }
}

}  // namespace

void sort_processes(std::vector<TopProcess>& processes, ProcessSort sort) {
  std::stable_sort(processes.begin(), processes.end(), [sort](const TopProcess& a, const TopProcess& b) {
    const auto ka = sort_key(a, sort);
    const auto kb = sort_key(b, sort);
    if (ka.has_value() != kb.has_value()) return ka.has_value();
    if (ka && *ka != *kb) return *ka > *kb;
    if (a.pid != b.pid) return a.pid < b.pid;
    return a.gpu < b.gpu;
  });
}

std::vector<ScreenLine> process_table(const TopView& view, std::size_t width, std::size_t rows) {
  std::vector<ScreenLine> out;
  // Its row comes out of the processes' only when one is left for them.
  const bool hidden_note = view.hidden_processes > 0 && rows >= 2;
  if (hidden_note) --rows;
  // PID USER GPU GPU-MEM GPU% CPU% RSS COMMAND: the columns nvitop and nvtop
  // share, so their users find each where they expect it.
  ScreenLine header;
  const std::string owner = any_owner(view) ? align_left("OWNER", kOwnerColumns) + " " : "";
  header.add(fmt::format("{:>7} {:<9} {:>3} {:>9} {:>4} {:>6} {:>9} {}COMMAND", "PID", "USER", "GPU", "GPU MEM", "GPU%",
                         "CPU%", "RSS", owner),
             Style::Header);
  header.pad_to(width, Style::Header);
  out.push_back(std::move(header));
  if (view.processes.empty()) {
    if (rows > 0) out.emplace_back("  no process holds memory on a watched GPU", Style::Dim);
  } else {
    add_process_rows(out, view, width, rows);
  }
  if (hidden_note) {
    out.emplace_back(fmt::format("  {} {} of other users hidden (run as root to see them)", view.hidden_processes,
                                 view.hidden_processes == 1 ? "process" : "processes"),
                     Style::Dim);
  }
  return out;
}

}  // namespace gpuwatch
