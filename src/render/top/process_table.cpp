#include "render/top/process_table.h"

#include <algorithm>
#include <cctype>

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

// The value `sort` orders by, for a process row or an owner row alike.
std::optional<double> sort_key(ProcessSort sort, std::optional<std::uint64_t> gpu_memory_bytes,
                               std::optional<double> gpu_percent, std::optional<double> cpu_percent) {
  switch (sort) {
    case ProcessSort::GpuMemory:
      return gpu_memory_bytes ? std::optional<double>(static_cast<double>(*gpu_memory_bytes)) : std::nullopt;
    case ProcessSort::GpuPercent: return gpu_percent;
    case ProcessSort::CpuPercent: return cpu_percent;
    case ProcessSort::Pid: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> sort_key(const TopProcess& p, ProcessSort sort) {
  return sort_key(sort, p.gpu_memory_bytes, p.gpu_percent, p.cpu_percent);
}

std::string or_dash(const std::optional<std::string>& s) { return s.value_or("–"); }

// Largest first, absent last; nullopt when the keys do not decide.
std::optional<bool> larger_first(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return a.has_value();
  if (a && *a != *b) return *a > *b;
  return std::nullopt;
}

// The first row shown of `rows`, so that the selected one is the last
// shown when it lies below the first screenful.
std::size_t first_shown(std::size_t selected, std::size_t rows) { return selected >= rows ? selected - rows + 1 : 0; }

ScreenLine table_row(std::string text, bool selected, std::size_t width) {
  ScreenLine line(std::move(text), selected ? Style::Selected : Style::Normal);
  if (selected) line.pad_to(width, Style::Selected);
  return line;
}

ScreenLine table_header(std::string text, std::size_t width) {
  ScreenLine header(std::move(text), Style::Header);
  header.pad_to(width, Style::Header);
  return header;
}

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
  const std::size_t first = first_shown(selected, rows);
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
    out.push_back(table_row(text, i == selected, width));
  }
}

ScreenLine process_header(const TopView& view, std::size_t width) {
  // PID USER GPU GPU-MEM GPU% CPU% RSS COMMAND: the columns nvitop and nvtop
  // share, so their users find each where they expect it.
  const std::string owner = any_owner(view) ? align_left("OWNER", kOwnerColumns) + " " : "";
  return table_header(fmt::format("{:>7} {:<9} {:>3} {:>9} {:>4} {:>6} {:>9} {}COMMAND", "PID", "USER", "GPU",
                                  "GPU MEM", "GPU%", "CPU%", "RSS", owner),
                      width);
}

// "0-3,6": a node's eight GPUs in a few columns (a run of three or more as
// a range).
std::string gpu_ranges(const std::vector<int>& gpus) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size();) {
    std::size_t last = i;
    while (last + 1 < gpus.size() && gpus[last + 1] == gpus[last] + 1) ++last;
    if (!out.empty()) out += ',';
    if (last >= i + 2) {
      out += fmt::format("{}-{}", gpus[i], gpus[last]);
      i = last + 1;
    } else {
      out += std::to_string(gpus[i]);
      ++i;
    }
  }
  return out;
}

std::string number_or_dash(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "–";
}

// OWNER KIND PROCS GPU-MEM GPU% CPU% GPUS USERS: the process table's sums,
// in its columns' units (GPU% adds each GPU's share: 400 is four GPUs busy).
constexpr std::size_t kOwnerCellColumns = 20;  // "app-blender-42.scope", a pod's 36-character UID cut
constexpr std::size_t kGpuListColumns = 8;
ScreenLine owner_header(std::size_t width) {
  return table_header(fmt::format("{:<{}} {:<9} {:>5} {:>9} {:>5} {:>6} {:<{}} USERS", "OWNER", kOwnerCellColumns,
                                  "KIND", "PROCS", "GPU MEM", "GPU%", "CPU%", "GPUS", kGpuListColumns),
                      width);
}

std::string owner_row_text(const OwnerGroup& g) {
  std::string users;
  for (const std::string& user : g.users) users += (users.empty() ? "" : ",") + user;
  return fmt::format(
      "{} {} {:>5} {} {} {} {} {}", align_left(shorten(owner_cell(g.owner), kOwnerCellColumns), kOwnerCellColumns),
      align_left(to_string(g.owner.kind), 9), g.pids.size(),
      align_right(g.gpu_memory_bytes ? human_bytes(static_cast<double>(*g.gpu_memory_bytes)) : "–", 9),
      align_right(number_or_dash(g.gpu_util_percent_sum, 0), 5), align_right(number_or_dash(g.cpu_percent_sum, 1), 6),
      align_left(shorten(gpu_ranges(g.gpus), kGpuListColumns), kGpuListColumns), users.empty() ? "–" : users);
}

void add_owner_rows(std::vector<ScreenLine>& out, const TopView& view, std::size_t width, std::size_t rows) {
  const std::vector<OwnerGroup> groups = owner_groups(view.processes, view.sort);
  const std::size_t selected = std::min(view.selected, groups.size() - 1);
  const std::size_t first = first_shown(selected, rows);
  for (std::size_t i = first; i < groups.size() && i < first + rows; ++i) {
    out.push_back(table_row(owner_row_text(groups[i]), i == selected, width));
  }
}

// Why the table is empty: nothing there, or nothing the focus and the
// filter let through.
std::string empty_table_text(const TopView& view) {
  const std::string where = view.focus_gpu ? fmt::format("GPU {}", *view.focus_gpu) : std::string("a watched GPU");
  if (view.filter.empty()) return fmt::format("  no process holds memory on {}", where);
  return fmt::format("  no process on {} matches \"{}\" (Esc clears the filter)", where, view.filter);
}

std::optional<double> group_sort_key(const OwnerGroup& g, ProcessSort sort) {
  return sort_key(sort, g.gpu_memory_bytes, g.gpu_util_percent_sum, g.cpu_percent_sum);
}

}  // namespace

void sort_processes(std::vector<TopProcess>& processes, ProcessSort sort) {
  std::stable_sort(processes.begin(), processes.end(), [sort](const TopProcess& a, const TopProcess& b) {
    if (const auto first = larger_first(sort_key(a, sort), sort_key(b, sort))) return *first;
    if (a.pid != b.pid) return a.pid < b.pid;
    return a.gpu < b.gpu;
  });
}

std::vector<ScreenLine> process_table(const TopView& view, std::size_t width, std::size_t rows) {
  std::vector<ScreenLine> out;
  // Its row comes out of the processes' only when one is left for them.
  const bool hidden_note = view.hidden_processes > 0 && rows >= 2;
  if (hidden_note) --rows;
  out.push_back(view.by_owner ? owner_header(width) : process_header(view, width));
  if (view.processes.empty()) {
    if (rows > 0) out.emplace_back(empty_table_text(view), Style::Dim);
  } else if (view.by_owner) {
    add_owner_rows(out, view, width, rows);
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

std::vector<OwnerGroup> owner_groups(const std::vector<TopProcess>& processes, ProcessSort sort) {
  std::vector<ProcessUse> uses;
  uses.reserve(processes.size());
  for (const TopProcess& p : processes) {
    uses.push_back({p.pid, p.gpu, p.gpu_memory_bytes, p.gpu_percent, p.cpu_percent, p.user, p.attribution});
  }
  std::vector<OwnerGroup> groups = group_by_owner(uses);
  std::stable_sort(groups.begin(), groups.end(), [sort](const OwnerGroup& a, const OwnerGroup& b) {
    if (const auto first = larger_first(group_sort_key(a, sort), group_sort_key(b, sort))) return *first;
    if (a.owner.kind != b.owner.kind) return a.owner.kind < b.owner.kind;
    return a.owner.name < b.owner.name;
  });
  return groups;
}

namespace {

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

}  // namespace

bool matches_filter(const TopProcess& p, std::string_view filter) {
  if (filter.empty()) return true;
  return contains_ignoring_case(std::to_string(p.pid), filter) || contains_ignoring_case(p.user, filter) ||
         contains_ignoring_case(attribution_text(p.attribution), filter) || contains_ignoring_case(p.command, filter);
}

void show_processes(TopView& view) {
  view.processes.clear();
  for (const TopProcess& p : view.all_processes) {
    if (view.focus_gpu && p.gpu != *view.focus_gpu) continue;
    if (matches_filter(p, view.filter)) view.processes.push_back(p);
  }
  const std::size_t rows = table_rows(view);
  view.selected = rows > 0 ? std::min(view.selected, rows - 1) : 0;
}

std::size_t table_rows(const TopView& view) {
  return view.by_owner ? owner_groups(view.processes, view.sort).size() : view.processes.size();
}

std::string owner_cell(const Owner& owner) {
  switch (owner.kind) {
    case OwnerKind::Pod: return "pod:" + owner.name.substr(0, 8);  // as the OWNER column shows it
    case OwnerKind::Unknown: return "(not in /proc)";
    default: return owner.name;
  }
}

}  // namespace gpuwatch
