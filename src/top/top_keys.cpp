#include "top/top_keys.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "render/top/process_table.h"
#include "render/units.h"

namespace gpuwatch {

double next_interval(double current, int direction) {
  if (direction > 0) {
    for (double step : kTopIntervals) {
      if (step > current + 1e-9) return step;
    }
    return std::max(current, kTopIntervals[std::size(kTopIntervals) - 1]);
  }
  for (auto it = std::rbegin(kTopIntervals); it != std::rend(kTopIntervals); ++it) {
    if (*it < current - 1e-9) return *it;
  }
  return std::min(current, kTopIntervals[0]);
}

void TopKeys::ask_to_kill(TopView& view) {
  if (view.processes.empty()) {
    view.message = "no process to stop";
    return;
  }
  if (view.by_owner) {  // a job is stopped by its scheduler, not by signalling its processes one by one
    view.message = "k stops one process: o lists the processes again";
    return;
  }
  const TopProcess& p = view.processes[std::min(view.selected, view.processes.size() - 1)];
  if (!p.uid || !p.start_ticks) {
    view.message = fmt::format("pid {} is gone or unreadable: nothing to stop", p.pid);
    return;
  }
  if (!root_ && *p.uid != my_uid_) {
    view.message = fmt::format("pid {} belongs to {}: only they or root may stop it", p.pid, p.user.empty() ? fmt::format("uid {}", *p.uid) : p.user);
    return;
  }
  const bool again = terminated_ && terminated_->pid == p.pid && terminated_->start_ticks == *p.start_ticks;
  pending_ = SignalRequest{p.pid, *p.start_ticks, again ? SIGKILL : SIGTERM};
  view.message = again ? fmt::format("pid {} still runs after SIGTERM: send SIGKILL? (y/n)", p.pid)
                       : fmt::format("send SIGTERM to pid {}? (y/n)  {}", p.pid, shorten(p.command, 40));
}

namespace {

// The selected row stays in sight across the switch: a process's owner, or
// an owner's first process.
void toggle_owners(TopView& view) {
  const std::vector<OwnerGroup> groups = owner_groups(view.processes, view.sort);
  std::size_t selected = 0;
  if (!view.processes.empty() && !view.by_owner) {
    const TopProcess& p = view.processes[std::min(view.selected, view.processes.size() - 1)];
    const Owner owner = owner_of(p.attribution, p.user);
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const OwnerGroup& g) { return g.owner == owner; });
    if (it != groups.end()) selected = static_cast<std::size_t>(it - groups.begin());
  } else if (!groups.empty()) {
    const Owner& owner = groups[std::min(view.selected, groups.size() - 1)].owner;
    const auto it = std::find_if(view.processes.begin(), view.processes.end(),
                                 [&](const TopProcess& p) { return owner_of(p.attribution, p.user) == owner; });
    if (it != view.processes.end()) selected = static_cast<std::size_t>(it - view.processes.begin());
  }
  view.by_owner = !view.by_owner;
  view.selected = selected;
  view.message = view.by_owner ? "one row per owner: Slurm job, container, pod, unit or user" : "one row per process";
}

}  // namespace

namespace {

// The arrows, j, PgUp, PgDn, Home and End: the selection within the
// table's rows. False for any other key.
bool move_selection(int key, TopView& view) {
  const std::size_t rows = table_rows(view);
  const std::size_t last = rows > 0 ? rows - 1 : 0;
  switch (key) {
    case kKeyDown:
    case 'j': view.selected = std::min(view.selected + 1, last); return true;
    case kKeyUp: view.selected = std::min(view.selected > 0 ? view.selected - 1 : 0, last); return true;
    case kKeyPageDown: view.selected = std::min(view.selected + kProcessPage, last); return true;
    case kKeyPageUp: view.selected = std::min(view.selected > kProcessPage ? view.selected - kProcessPage : 0, last); return true;
    case kKeyHome: view.selected = 0; return true;
    case kKeyEnd: view.selected = last; return true;
    default: return false;
  }
}

void say_filter(TopView& view) {
  view.message = fmt::format("filter: {}_   (Enter keeps it, Esc clears it)", view.filter);
}

}  // namespace

void TopKeys::edit_filter(int key, TopView& view) {
  if (key == '\n' || key == '\r' || key == kKeyEnter) {
    view.editing_filter = false;
    view.message = view.filter.empty() ? std::string() : fmt::format("processes matching \"{}\" (Esc: all)", view.filter);
    return;
  }
  if (key == kKeyEscape) {
    view.editing_filter = false;
    view.filter.clear();
    view.message = "filter cleared";
  } else if (key == kKeyBackspace || key == 127 || key == 8) {
    if (!view.filter.empty()) view.filter.pop_back();
    say_filter(view);
  } else if (key >= 0x20 && key < 0x7f && view.filter.size() < kMaxFilterBytes) {
    view.filter += static_cast<char>(key);
    say_filter(view);
  } else {
    return;
  }
  // The list narrows as the text is typed, the selection back at its top.
  view.selected = 0;
  show_processes(view);
}

void TopKeys::focus_digit(int digit, TopView& view, std::chrono::steady_clock::time_point at) {
  constexpr auto kSecondDigit = std::chrono::seconds(1);
  const auto watched = [&view](int gpu) {
    return std::any_of(view.devices.begin(), view.devices.end(), [gpu](const DeviceInfo& d) { return d.index == gpu; });
  };
  const std::optional<Digit> before = last_digit_;
  last_digit_ = Digit{digit, at};
  if (before && at - before->at <= kSecondDigit && watched(before->digit * 10 + digit)) {
    view.focus_gpu = before->digit * 10 + digit;
    last_digit_.reset();  // a third digit starts again
    return;
  }
  if (view.focus_gpu == digit) {
    view.focus_gpu.reset();
  } else if (watched(digit)) {
    view.focus_gpu = digit;
  } else {
    view.message = fmt::format("there is no GPU {} here", digit);
  }
}

KeyOutcome TopKeys::handle(int key, TopView& view, std::chrono::steady_clock::time_point at) {
  KeyOutcome out;
  if (key < '0' || key > '9') last_digit_.reset();
  if (pending_) {
    const SignalRequest request = *pending_;
    pending_.reset();
    if (key == 'y' || key == 'Y') {
      out.signal = request;
    } else {
      view.message = "not sent";
    }
    return out;
  }
  if (view.editing_filter) {
    edit_filter(key, view);
    return out;
  }
  if (view.help) {  // any key closes the help
    view.help = false;
    return out;
  }
  view.message.clear();
  if (move_selection(key, view)) return out;
  switch (key) {
    case 'q':
    case 'Q': out.quit = true; break;
    case 's':
      view.sort = next(view.sort);
      sort_processes(view.all_processes, view.sort);
      sort_processes(view.processes, view.sort);
      view.message = fmt::format("sorted by {}", to_string(view.sort));
      break;
    case 'k': ask_to_kill(view); break;
    case 'o': toggle_owners(view); break;
    case 'p':
      view.paused = !view.paused;
      break;
    case '+':
    case '-': {
      // + and - act on the number shown in the header: "every 1 s".
      const double interval = next_interval(view.interval_s, key == '+' ? 1 : -1);
      if (interval != view.interval_s) out.interval_s = interval;
      view.message = fmt::format("every {} s", fixed(interval, interval < 1 ? 1 : 0));
      break;
    }
    case 'h':
    case '?': view.help = true; break;
    case '/':
      view.editing_filter = true;
      say_filter(view);
      break;
    case kKeyEscape:
      // The filter first, then the focus: each Esc undoes one narrowing.
      if (!view.filter.empty()) {
        view.filter.clear();
      } else {
        view.focus_gpu.reset();
      }
      show_processes(view);
      break;
    default:
      if (key >= '0' && key <= '9') {
        focus_digit(key - '0', view, at);
        show_processes(view);  // the focused GPU's processes only
      }
      break;
  }
  return out;
}

void TopKeys::signal_sent(const SignalRequest& request, int error, TopView& view) {
  const char* name = request.signal == SIGKILL ? "SIGKILL" : "SIGTERM";
  if (error == 0) {
    view.message = fmt::format("sent {} to pid {}", name, request.pid);
    if (request.signal == SIGTERM) terminated_ = request;
  } else {
    view.message = fmt::format("could not send {} to pid {}: {}", name, request.pid, std::strerror(error));
  }
}

}  // namespace gpuwatch
