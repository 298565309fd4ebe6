#include "backends/drm_fdinfo/fdinfo_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <memory>

#include "backends/procfs/read_at.h"
#include "base/unique_fd.h"
#include "core/whole_number.h"

namespace gpuwatch {
namespace drm_fdinfo {
namespace {

// How often a process's fd directory is listed again. procfs does not
// update a /proc/PID/fd directory's mtime when fds open or close, so there
// is no cheap sign of change: a process is re-listed every kRelistScans
// scans (10 s at the default 1 s slow interval), staggered by pid so that
// the cost is spread over the scans. Between listings only the fds known
// to be DRM are read, one fdinfo file each. A process that opens the GPU
// later is found within kRelistScans scans; one whose known DRM fd closed
// (its fdinfo is gone or no longer DRM) is re-listed at once.
//
// Listing is most of a scan's cost (a readlink per fd: ~1.3 us each, 5,000 a
// scan over 2,000 processes of 24 fds). Since Linux 6.2 the size of
// /proc/PID/fd is the process's number of open fds, so a process due for a
// listing whose count has not changed since the last one is skipped, and
// listed anyway every kFullRelistScans scans: a process that opened a GPU
// while closing as many other fds is found by then. Older kernels report 0
// (and other file systems, such as test fixtures, a byte size): the count
// never matches, and every due process is listed.
constexpr std::uint32_t kRelistScans = 10;
constexpr std::uint32_t kFullRelistScans = 300;
static_assert(kFullRelistScans % kRelistScans == 0);

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

// A directory stream over dir_fd/path (the fd stays the caller's).
DirPtr open_dir_at(int dir_fd, const char* path) {
  const int fd = ::openat(dir_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) ::close(fd);
  return DirPtr(d);
}

std::optional<std::uint32_t> number_name(const char* name) {
  return parse_whole_number<std::uint32_t>(std::string_view(name));
}

// The fd's link target is a DRM node: /dev/dri/card1, /dev/dri/renderD128.
// Cheaper than opening its fdinfo, and sockets, pipes and files are most of
// a process's fds.
bool links_to_dri(int fd_dir, const char* name) {
  std::array<char, 64> target{};
  const ssize_t n = ::readlinkat(fd_dir, name, target.data(), target.size());
  return n > 0 && std::string_view(target.data(), static_cast<std::size_t>(n)).starts_with("/dev/dri/");
}

// Kernel threads (and zombies) have an empty cmdline: they hold no DRM fds,
// so a refused listing of theirs hides nothing worth counting.
bool has_command_line(int root_fd, std::uint32_t pid, std::string& buf) {
  const std::optional<std::string_view> text = read_at(root_fd, PidPath(pid, "cmdline").c_str(), buf);
  return text && !text->empty();
}

double clamp_percent(double p) { return std::clamp(p, 0.0, 100.0); }

// The process's open fds by the size of its fd directory; 0 when unknown.
std::int64_t open_fd_count(int root_fd, std::uint32_t pid) {
  struct stat st {};
  if (::fstatat(root_fd, PidPath(pid, "fd").c_str(), &st, 0) != 0) return 0;
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace
}  // namespace drm_fdinfo

std::optional<double> DrmClient::use_percent(std::string_view engine) const {
  for (const DrmEngineUse& u : engine_use) {
    if (u.name == engine) return u.percent;
  }
  return std::nullopt;
}

DrmFdinfoScanner::DrmFdinfoScanner(std::filesystem::path procfs_root) : root_(std::move(procfs_root)) {}

bool DrmFdinfoScanner::needs_listing(int root_fd, std::uint32_t pid, const ProcessFds* cached) const {
  if (cached == nullptr) return true;
  const std::uint32_t turn = scan_count_ + pid;
  if (cached->listed_scan == scan_count_ || turn % drm_fdinfo::kRelistScans != 0) return false;
  if (turn % drm_fdinfo::kFullRelistScans == 0 || cached->fd_count <= 0) return true;
  return drm_fdinfo::open_fd_count(root_fd, pid) != cached->fd_count;
}

DrmFdinfoScanner::ProcessFds DrmFdinfoScanner::list_fds(int root_fd, std::uint32_t pid) {
  ProcessFds fds;
  fds.listed_scan = scan_count_;
  const drm_fdinfo::DirPtr dir = drm_fdinfo::open_dir_at(root_fd, PidPath(pid, "fd").c_str());
  if (!dir) {
    // EACCES: another user's process. ENOENT or ESRCH: it has just exited.
    // Anything else is as unreadable as EACCES, and counted the same.
    const bool exited = errno == ENOENT || errno == ESRCH;
    fds.hidden = !exited && drm_fdinfo::has_command_line(root_fd, pid, buf_);
    return fds;
  }
  const int dir_fd = ::dirfd(dir.get());
  while (const dirent* e = ::readdir(dir.get())) {
    const std::optional<std::uint32_t> fd = drm_fdinfo::number_name(e->d_name);
    if (!fd) continue;
    ++fds.fd_count;
    if (*fd <= INT32_MAX && drm_fdinfo::links_to_dri(dir_fd, e->d_name)) fds.drm_fds.push_back(static_cast<int>(*fd));
  }
  return fds;
}

bool DrmFdinfoScanner::read_clients(int root_fd, std::uint32_t pid, const ProcessFds& fds,
                                    std::map<ClientKey, DrmClient>& found) {
  for (const int fd : fds.drm_fds) {
    std::array<char, 24> leaf{};
    const auto end = std::to_chars(leaf.data() + 7, leaf.data() + leaf.size() - 1, fd).ptr;
    std::copy_n("fdinfo/", 7, leaf.data());
    const std::optional<std::string_view> text =
        read_at(root_fd, PidPath(pid, std::string_view(leaf.data(), end)).c_str(), buf_);
    if (!text) return false;
    std::optional<DrmFdinfo> info = parse_drm_fdinfo(*text);
    if (!info) return false;
    // Every driver that prints usage stats prints the client id (the spec's
    // way to count a shared or dup'ed fd once): without one there is no
    // telling two fds of one client from two clients.
    if (!info->client_id) continue;
    ClientKey key{info->pdev, *info->client_id};
    auto [it, added] = found.try_emplace(std::move(key));
    if (added) {
      it->second.pid = pid;
      it->second.info = std::move(*info);
    } else {
      it->second.pid = std::min(it->second.pid, pid);
    }
  }
  return true;
}

void DrmFdinfoScanner::measure(DrmClient& client, const ClientKey& key, Timestamp time,
                               std::map<ClientKey, Counters>& next) {
  Counters& now = next[key];
  now.mono_ns = time.mono_ns;
  const auto prev = before_.find(key);
  if (prev != before_.end()) now.engines = prev->second.engines;  // an engine that vanishes keeps its counters
  for (const DrmEngine& e : client.info.engines) {
    DrmEngine& kept = now.engines[e.name];
    kept.name = e.name;
    kept.capacity = e.capacity;
    // The largest value seen: a counter that steps back changes nothing.
    const auto keep_max = [](std::optional<std::uint64_t>& k, std::optional<std::uint64_t> v) {
      if (v && (!k || *v > *k)) k = v;
    };
    keep_max(kept.busy_ns, e.busy_ns);
    keep_max(kept.cycles, e.cycles);
    keep_max(kept.total_cycles, e.total_cycles);
  }
  if (prev == before_.end()) return;  // first sight: no rate yet
  const std::int64_t wall_ns = time.mono_ns - prev->second.mono_ns;
  for (const auto& [name, e] : now.engines) {
    const auto was = prev->second.engines.find(name);
    const DrmEngine* before = was == prev->second.engines.end() ? nullptr : &was->second;
    const double capacity = e.capacity;
    std::optional<double> percent;
    if (e.busy_ns && wall_ns > 0) {
      // amdgpu prints an engine only once it has been busy: a known client's
      // engine that was not there before had 0 ns then.
      const std::uint64_t was_ns = before && before->busy_ns ? *before->busy_ns : 0;
      percent = static_cast<double>(*e.busy_ns - was_ns) * 100 / static_cast<double>(wall_ns) / capacity;
    } else if (e.cycles && e.total_cycles && before && before->cycles && before->total_cycles &&
               *e.total_cycles > *before->total_cycles) {
      // xe: busy cycles against the GPU's own timestamp, both in GPU clocks.
      percent = static_cast<double>(*e.cycles - *before->cycles) * 100 /
                static_cast<double>(*e.total_cycles - *before->total_cycles) / capacity;
    }
    // Above 100 only by the jitter between the kernel's and our clocks.
    if (percent) client.engine_use.push_back({name, drm_fdinfo::clamp_percent(*percent)});
  }
}

DrmScan DrmFdinfoScanner::scan(Timestamp time) {
  ++scan_count_;
  DrmScan out;
  out.time = time;
  const UniqueFd root(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const drm_fdinfo::DirPtr dir(root.valid() ? ::fdopendir(::dup(root.get())) : nullptr);
  if (!dir) return out;

  std::unordered_map<std::uint32_t, ProcessFds> seen;
  std::map<ClientKey, DrmClient> found;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::optional<std::uint32_t> pid = drm_fdinfo::number_name(e->d_name);
    if (!pid) continue;
    const auto cached = processes_.find(*pid);
    ProcessFds fds = needs_listing(root.get(), *pid, cached == processes_.end() ? nullptr : &cached->second)
                         ? list_fds(root.get(), *pid)
                         : std::move(cached->second);
    if (!read_clients(root.get(), *pid, fds, found) && fds.listed_scan != scan_count_) {
      fds = list_fds(root.get(), *pid);
      read_clients(root.get(), *pid, fds, found);
    }
    if (fds.hidden) ++out.hidden_processes;
    if (fds.listed_scan == scan_count_) ++out.listed_processes;
    seen.emplace(*pid, std::move(fds));
  }
  processes_ = std::move(seen);

  std::map<ClientKey, Counters> next;
  out.clients.reserve(found.size());
  for (auto& [key, client] : found) {
    measure(client, key, time, next);
    out.clients.push_back(std::move(client));
  }
  before_ = std::move(next);
  return out;
}

}  // namespace gpuwatch
