#include "record/run_name.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "core/utf8.h"

namespace gpuwatch {

namespace {

using Args = std::span<const std::string>;
using namespace std::string_view_literals;

constexpr std::size_t kMaxNameBytes = 64;

bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

std::string_view basename(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool has_script_extension(std::string_view s) {
  for (std::string_view ext : {".py"sv, ".sh"sv, ".bash"sv, ".zsh"sv, ".pl"sv, ".rb"sv, ".js"sv, ".R"sv, ".jl"sv,
                               ".lua"sv, ".ipynb"sv}) {
    if (s.size() > ext.size() && s.ends_with(ext)) return true;
  }
  return false;
}

// "scripts/train.py" -> "train"; "/usr/bin/sleep" -> "sleep".
std::string program_name(std::string_view path) {
  std::string_view name = basename(path);
  if (has_script_extension(name)) name = name.substr(0, name.rfind('.'));
  return std::string(name.empty() ? path : name);
}

bool is_python(std::string_view program) {
  const std::string_view b = basename(program);
  for (std::string_view p : {"python"sv, "pypy"sv}) {
    if (b.starts_with(p) && b.find_first_not_of("0123456789.", p.size()) == std::string_view::npos) return true;
  }
  return false;
}

bool is_shell(std::string_view program) { return one_of(basename(program), {"sh", "bash", "zsh", "dash", "ksh"}); }

bool is_option(std::string_view s) { return s.size() > 1 && s.front() == '-'; }
bool is_assignment(std::string_view s) {
  const auto eq = s.find('=');
  return eq != std::string_view::npos && eq > 0 && !is_option(s) && s.substr(0, eq).find('/') == std::string_view::npos;
}

// Skips a launcher's options: "--opt=v" and known flags alone, any other
// option with the word after it unless that word is an option itself or a
// script ("--nproc_per_node 8 train.py", "--standalone train.py").
// Stops at "--" (skipped) and at the first word that is no option.
Args skip_options(Args a, std::initializer_list<std::string_view> flags) {
  while (!a.empty() && is_option(a.front())) {
    const std::string_view opt = a.front();
    a = a.subspan(1);
    if (opt == "--") break;
    if (opt.find('=') != std::string_view::npos || one_of(opt, flags)) continue;
    if (!a.empty() && !is_option(a.front()) && !has_script_extension(a.front())) a = a.subspan(1);
  }
  return a;
}

std::string name_of(Args a, int depth);
std::string launcher_name(Args a, std::string_view launcher, int depth);

// After the interpreter: [options] (-m MODULE | -c CODE | SCRIPT | nothing).
std::string python_name(Args a, std::string_view python, int depth) {
  while (!a.empty() && is_option(a.front())) {
    const std::string_view opt = a.front();
    a = a.subspan(1);
    if (opt == "--") break;
    if (opt == "-m" || opt.starts_with("-m")) {
      std::string_view module = opt.size() > 2 ? opt.substr(2) : (a.empty() ? ""sv : std::string_view(a.front()));
      if (opt.size() == 2 && !a.empty()) a = a.subspan(1);
      if (module.empty()) break;
      // Launchers run a script given after their own options.
      if (one_of(module, {"torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch",
                          "deepspeed.launcher.runner", "torch.distributed.elastic.multiprocessing"})) {
        return launcher_name(a, module, depth);
      }
      return std::string(module);
    }
    if (opt == "-c") return std::string(basename(python));
    if (one_of(opt, {"-W", "-X", "--check-hash-based-pycs"}) && !a.empty()) a = a.subspan(1);
  }
  if (a.empty()) return std::string(basename(python));
  return program_name(a.front());
}

// After a launcher that starts the script in every process (torchrun,
// python -m torch.distributed.run, deepspeed, accelerate launch): its
// options, then a script, a module (-m) or a program (--no_python).
std::string launcher_name(Args a, std::string_view launcher, int depth) {
  bool module = false;
  while (!a.empty() && is_option(a.front())) {
    const std::string_view opt = a.front();
    a = a.subspan(1);
    if (opt == "--") break;
    if (opt == "-m" || opt == "--module") {
      module = true;
    } else if (opt.find('=') == std::string_view::npos &&
               !one_of(opt, {"--standalone", "--no_python", "--no-python", "--multi_gpu", "--use_env", "--use-env",
                             "--cpu", "--no_local_rank", "--autotune", "--force_multi", "--bind_cores_to_rank"}) &&
               !a.empty() && !is_option(a.front()) && !has_script_extension(a.front())) {
      a = a.subspan(1);  // the option's value
    }
  }
  if (a.empty()) return std::string(launcher);
  if (module) return a.front();
  std::string inner = name_of(a, depth + 1);
  return inner.empty() ? std::string(launcher) : inner;
}

std::string name_of(Args a, int depth) {
  // Each step removes at least one word; the bound is only a guard.
  if (a.empty() || depth > 16) return {};
  const std::string_view program = a.front();
  const std::string_view base = basename(program);
  const Args rest = a.subspan(1);
  if (is_assignment(program)) return name_of(rest, depth + 1);  // A=1 CMD (as a shell would run it)
  if (base == "env") {
    Args r = rest;
    while (!r.empty() && (is_option(r.front()) || is_assignment(r.front()))) {
      const std::string_view w = r.front();
      r = r.subspan(1);
      if (one_of(w, {"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}) && !r.empty()) r = r.subspan(1);
    }
    return name_of(r, depth + 1);
  }
  if (one_of(base, {"nohup", "time", "stdbuf", "nice", "ionice", "chrt", "setsid", "exec", "command"})) {
    return name_of(skip_options(rest, {"-v", "-p", "-a", "-c", "-t"}), depth + 1);
  }
  if (base == "timeout") {  // timeout [OPTION] DURATION COMMAND
    Args r = skip_options(rest, {"--preserve-status", "--foreground", "-v", "--verbose"});
    return name_of(r.empty() ? r : r.subspan(1), depth + 1);
  }
  if (base == "taskset") {  // taskset [-c] [-a] MASK COMMAND
    Args r = rest;
    while (!r.empty() && is_option(r.front())) r = r.subspan(1);
    return name_of(r.empty() ? r : r.subspan(1), depth + 1);
  }
  if (one_of(base, {"numactl", "mpirun", "mpiexec", "srun", "horovodrun", "nsys", "ncu", "compute-sanitizer",
                    "py-spy"})) {
    Args r = skip_options(rest, {"--allow-run-as-root", "--oversubscribe", "-l", "--localalloc"});
    if (one_of(base, {"nsys", "ncu", "py-spy"}) && !r.empty() && one_of(r.front(), {"profile", "record", "launch"})) {
      r = skip_options(r.subspan(1), {});
    }
    std::string inner = name_of(r, depth + 1);
    return inner.empty() ? std::string(base) : inner;
  }
  if (one_of(base, {"uv", "poetry", "pipenv", "conda", "mamba", "micromamba", "pixi", "hatch", "pdm", "rye"})) {
    if (!rest.empty() && rest.front() == "run") {
      std::string inner = name_of(skip_options(rest.subspan(1), {"--no-capture-output", "--live-stream"}), depth + 1);
      if (!inner.empty()) return inner;
    }
    return std::string(base);
  }
  if (base == "accelerate" && !rest.empty() && rest.front() == "launch") {
    return launcher_name(rest.subspan(1), "accelerate", depth);
  }
  if (one_of(base, {"torchrun", "deepspeed", "composer"})) return launcher_name(rest, base, depth);
  if (is_python(program)) return python_name(rest, program, depth);
  if (is_shell(program)) {
    Args r = rest;
    while (!r.empty() && is_option(r.front())) {
      const std::string_view opt = r.front();
      r = r.subspan(1);
      if (opt == "-c") return std::string(base);  // bash -c '...': the code has no name
      if (opt == "--") break;
      if (one_of(opt, {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}) && !r.empty()) r = r.subspan(1);
    }
    return r.empty() ? std::string(base) : program_name(r.front());
  }
  return program_name(program);
}

// At most kMaxNameBytes, cut at a character boundary.
std::string bounded(std::string name) {
  if (name.size() <= kMaxNameBytes) return name;
  std::size_t end = 0;
  for (std::size_t i = 0; i < name.size();) {
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence_length(name, i));
    if (i + n > kMaxNameBytes) break;
    i += n;
    end = i;
  }
  name.resize(end);
  return name;
}

}  // namespace

std::string default_run_name(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  std::string name = name_of(argv, 0);
  if (name.empty()) name = program_name(argv.front());
  if (name.empty()) name = "run";
  return bounded(std::move(name));
}

}  // namespace gpuwatch
