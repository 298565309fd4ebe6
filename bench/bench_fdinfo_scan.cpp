// bench_fdinfo_scan: CPU time of one DRM fdinfo scan (backends/drm_fdinfo),
// the per-process GPU use that amdgpu and Intel read once a slow round
// (issue 11: under 2 ms of CPU per scan at 1 Hz over 2,000 processes).
//
//   bench_fdinfo_scan [--processes 2000] [--fds 24] [--clients 16] [--scans 60]
//                     [--real-children 0]
//
// Two machines' worth of /proc:
// - a fixture tree laid out as procfs is (PID/cmdline, PID/fd/N links,
//   PID/fdinfo/N), `--processes` processes of `--fds` fds each (sockets,
//   pipes, libraries), `--clients` of them with a render node open whose
//   fdinfo (xe's keys, as a Arc B50 prints them) advances between scans;
// - with `--real-children N`, this machine's own /proc after starting N
//   sleeping children of `--fds` fds each: the kernel's procfs, with no DRM
//   client on a machine without a GPU, so it measures the listing and link
//   reads alone.
// The first scan lists every process; later ones look again at a tenth of
// them (kRelistScans), listing those whose fd count changed (Linux >= 6.2
// gives the count; on a fixture tree the count is unknown and every due
// process is listed, as on older kernels), and read the known DRM fds. Prints one row per tree: the
// first scan's CPU, and the mean, p95 and max of the rest.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/drm_fdinfo/fdinfo_scan.h"

namespace {

namespace fs = std::filesystem;

double cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// xe's keys (tests/fixtures/procfs: an Intel Arc B50 on kernel 6.12), with
// the render engine's busy cycles advanced by `scan`.
std::string xe_fdinfo(std::size_t client, std::uint64_t scan) {
  const std::uint64_t total = 7'655'183'225 + scan * 1'000'000'000;
  const std::uint64_t busy = 28'257'900 + scan * 400'000'000;
  std::string s = "pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t1201\ndrm-driver:\txe\n";
  s += "drm-client-id:\t" + std::to_string(client + 1) + "\ndrm-pdev:\t0000:c1:00.0\n";
  s += "drm-total-gtt:\t192 KiB\ndrm-resident-gtt:\t192 KiB\n";
  s += "drm-total-vram0:\t23992 KiB\ndrm-resident-vram0:\t23992 KiB\n";
  for (const char* engine : {"rcs", "bcs", "vcs", "vecs", "ccs"}) {
    const bool render = std::string_view(engine) == "rcs";
    s += std::string("drm-cycles-") + engine + ":\t" + std::to_string(render ? busy : 0) + "\n";
    s += std::string("drm-total-cycles-") + engine + ":\t" + std::to_string(total) + "\n";
  }
  return s;
}

struct FixtureTree {
  fs::path root;
  std::vector<fs::path> client_fdinfo;  // the DRM fds' fdinfo files, rewritten between scans
};

FixtureTree make_tree(const fs::path& root, std::size_t processes, std::size_t fds, std::size_t clients) {
  FixtureTree tree{root, {}};
  fs::remove_all(root);
  const std::size_t every = clients > 0 ? std::max<std::size_t>(1, processes / clients) : processes + 1;
  for (std::size_t p = 0; p < processes; ++p) {
    const fs::path dir = root / std::to_string(1000 + p);
    fs::create_directories(dir / "fd");
    fs::create_directories(dir / "fdinfo");
    write_file(dir / "cmdline", std::string("python3\0train.py\0", 17));
    const bool client = p % every == 0 && tree.client_fdinfo.size() < clients;
    for (std::size_t f = 0; f < fds; ++f) {
      std::string target;
      if (client && f == fds - 1) {
        target = "/dev/dri/renderD128";
        tree.client_fdinfo.push_back(dir / "fdinfo" / std::to_string(f));
        write_file(tree.client_fdinfo.back(), xe_fdinfo(tree.client_fdinfo.size() - 1, 0));
      } else {
        target = f % 3 == 0 ? "socket:[" + std::to_string(40000 + p * fds + f) + "]"
                 : f % 3 == 1 ? "pipe:[" + std::to_string(90000 + p * fds + f) + "]"
                              : "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
      }
      fs::create_symlink(target, dir / "fd" / std::to_string(f));
    }
  }
  return tree;
}

struct Row {
  double first_ms = 0;
  double mean_ms = 0;
  double p95_ms = 0;
  double max_ms = 0;
  std::size_t clients = 0;
};

template <typename BetweenScans>
Row measure(const fs::path& root, std::size_t scans, const BetweenScans& between) {
  gpuwatch::DrmFdinfoScanner scanner(root);
  std::vector<double> later;
  Row row;
  for (std::size_t i = 0; i < scans; ++i) {
    between(i);
    const gpuwatch::Timestamp now{static_cast<std::int64_t>(i + 1) * 1'000'000'000, 0};
    const double before = cpu_ms();
    const gpuwatch::DrmScan scan = scanner.scan(now);
    const double spent = cpu_ms() - before;
    row.clients = scan.clients.size();
    if (i == 0) {
      row.first_ms = spent;
    } else {
      later.push_back(spent);
    }
  }
  if (later.empty()) return row;
  std::sort(later.begin(), later.end());
  double sum = 0;
  for (double v : later) sum += v;
  row.mean_ms = sum / static_cast<double>(later.size());
  row.p95_ms = later[std::min(later.size() - 1, later.size() * 95 / 100)];
  row.max_ms = later.back();
  return row;
}

// The floor under any scan: the kernel listing /proc, nothing else read.
double list_proc_ms(std::size_t times) {
  const double before = cpu_ms();
  std::size_t entries = 0;
  for (std::size_t i = 0; i < times; ++i) {
    DIR* dir = ::opendir("/proc");
    if (dir == nullptr) return 0;
    while (::readdir(dir) != nullptr) ++entries;
    ::closedir(dir);
  }
  return entries > 0 ? (cpu_ms() - before) / static_cast<double>(times) : 0;
}

void print(const char* what, std::size_t processes, const Row& r) {
  std::printf("| %s | %zu | %zu | %.2f | %.3f | %.3f | %.3f |\n", what, processes, r.clients, r.first_ms, r.mean_ms,
              r.p95_ms, r.max_ms);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t processes = 2000;
  std::size_t fds = 24;
  std::size_t clients = 16;
  std::size_t scans = 60;
  std::size_t real_children = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const auto value = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
    if (flag == "--processes") {
      processes = value;
    } else if (flag == "--fds") {
      fds = std::max<std::size_t>(1, value);
    } else if (flag == "--clients") {
      clients = value;
    } else if (flag == "--scans") {
      scans = std::max<std::size_t>(2, value);
    } else if (flag == "--real-children") {
      real_children = value;
    } else {
      std::fprintf(stderr, "bench_fdinfo_scan: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("| /proc | processes | DRM clients | first scan CPU ms | later scans: mean | p95 | max |\n");
  std::printf("|---|---|---|---|---|---|---|\n");

  const fs::path root = fs::temp_directory_path() / ("bench_fdinfo_scan." + std::to_string(::getpid()));
  const FixtureTree tree = make_tree(root, processes, fds, clients);
  const Row fixture = measure(root, scans, [&](std::size_t scan) {
    for (std::size_t c = 0; c < tree.client_fdinfo.size(); ++c) write_file(tree.client_fdinfo[c], xe_fdinfo(c, scan));
  });
  print("fixture tree", processes, fixture);
  fs::remove_all(root);

  if (real_children > 0) {
    std::vector<pid_t> children;
    for (std::size_t i = 0; i < real_children; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (std::size_t f = 3; f < fds; ++f) ::open("/dev/null", O_RDONLY);  // kept open while it sleeps
        ::pause();
        ::_exit(0);
      }
      if (pid < 0) break;
      children.push_back(pid);
    }
    std::size_t total = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      total += !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    }
    const Row real = measure("/proc", scans, [](std::size_t) {});
    const double floor_ms = list_proc_ms(scans);
    for (const pid_t pid : children) ::kill(pid, SIGKILL);
    for (const pid_t pid : children) ::waitpid(pid, nullptr, 0);
    print("this machine's /proc", total, real);
    std::printf("\nlisting /proc alone (readdir, no file opened): %.3f ms of CPU per listing\n", floor_ms);
  }
  return 0;
}
