#include "matrix/grid.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace gpuwatch::matrix {

namespace {

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

bool is_identifier(std::string_view s) {
  return !s.empty() && ident_start(s.front()) && std::all_of(s.begin(), s.end(), ident_char);
}

bool excluded(const Values& config, const std::vector<Values>& excludes) {
  return std::any_of(excludes.begin(), excludes.end(), [&](const Values& ex) {
    return std::all_of(ex.begin(), ex.end(), [&](const auto& kv) {
      return std::find(config.begin(), config.end(), kv) != config.end();
    });
  });
}

// One pass over `arg` that both substitute() and placeholders() share, so
// that they can never disagree on what a placeholder is. `on_name` gets each
// placeholder's name and returns its replacement.
template <typename OnName>
std::string scan(std::string_view arg, OnName on_name) {
  std::string out;
  std::size_t i = 0;
  while (i < arg.size()) {
    const char c = arg[i];
    if ((c == '{' || c == '}') && i + 1 < arg.size() && arg[i + 1] == c) {  // "{{" or "}}"
      out += c;
      i += 2;
      continue;
    }
    if (c == '{' && (i == 0 || arg[i - 1] != '$')) {
      std::size_t j = i + 1;
      while (j < arg.size() && ident_char(arg[j])) ++j;
      const std::string_view name = arg.substr(i + 1, j - i - 1);
      if (j < arg.size() && arg[j] == '}' && is_identifier(name)) {
        out += on_name(name);
        i = j + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

GridError unknown_placeholder(std::string_view name) {
  return GridError(fmt::format("the command's placeholder {{{}}} names no --param (write {{{{{}}}}} for the literal text)",
                               name, name));
}

}  // namespace

bool is_param_name(std::string_view name) { return is_identifier(name); }

Param parse_param(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw GridError(fmt::format("--param '{}': expected NAME=V1,V2,...", text));
  }
  Param p;
  p.name = std::string(text.substr(0, eq));
  if (!is_identifier(p.name)) {
    throw GridError(fmt::format("--param '{}': the name '{}' must be letters, digits and '_', not starting with a digit",
                                text, p.name));
  }
  const std::string_view list = text.substr(eq + 1);
  if (list.empty()) throw GridError(fmt::format("--param {}: no values", p.name));
  std::size_t start = 0;
  while (true) {
    const auto comma = list.find(',', start);
    const std::string_view v = list.substr(start, comma == std::string_view::npos ? list.npos : comma - start);
    if (v.empty()) throw GridError(fmt::format("--param {}: an empty value in '{}'", p.name, list));
    if (std::find(p.values.begin(), p.values.end(), v) != p.values.end()) {
      throw GridError(fmt::format("--param {}: the value '{}' is listed twice", p.name, v));
    }
    p.values.emplace_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return p;
}

std::vector<std::string> placeholders(std::string_view arg) {
  std::vector<std::string> names;
  scan(arg, [&](std::string_view name) {
    names.emplace_back(name);
    return std::string();
  });
  return names;
}

std::string substitute(std::string_view arg, const std::vector<std::pair<std::string, std::string>>& values) {
  return scan(arg, [&](std::string_view name) -> std::string {
    for (const auto& [k, v] : values) {
      if (k == name) return v;
    }
    throw unknown_placeholder(name);
  });
}

void validate(const GridSpec& spec) {
  if (spec.params.empty()) throw GridError("no --param NAME=V1,V2,...: the grid needs at least one");
  if (spec.repeat < 1) throw GridError("--repeat must be 1 or more");
  if (spec.command.empty()) throw GridError("no command: give it after --, with {NAME} where a value goes");
  std::set<std::string> names;
  for (const Param& p : spec.params) {
    if (p.name == "rep") throw GridError("--param rep: 'rep' is reserved for the repeat number");
    if (p.values.empty()) throw GridError(fmt::format("--param {}: no values", p.name));
    if (!names.insert(p.name).second) throw GridError(fmt::format("--param {} is given twice (by --param or --grid)", p.name));
  }
  std::set<std::string> used;
  for (const std::string& arg : spec.command) {
    for (std::string& name : placeholders(arg)) {
      if (names.count(name) == 0) {
        throw unknown_placeholder(name);
      }
      used.insert(std::move(name));
    }
  }
  for (const Param& p : spec.params) {
    if (used.count(p.name) == 0) {
      throw GridError(fmt::format("--param {} is never used: put {{{}}} in the command", p.name, p.name));
    }
  }
  for (const Values& ex : spec.excludes) {
    if (ex.empty()) throw GridError("an exclude names no param");
    for (const auto& pair : ex) {  // no structured binding: clang before 16 cannot capture one
      const std::string& name = pair.first;
      const std::string& value = pair.second;
      const auto p = std::find_if(spec.params.begin(), spec.params.end(), [&](const Param& q) { return q.name == name; });
      if (p == spec.params.end()) throw GridError(fmt::format("an exclude names the param {}, which the grid has not", name));
      if (std::find(p->values.begin(), p->values.end(), value) == p->values.end()) {
        throw GridError(fmt::format("an exclude names {}={}, a value {} does not list", name, value, name));
      }
    }
  }
}

std::string safe_dir_name(std::string_view name) {
  // Sized once and written in place (GCC 12 warns falsely, -Wrestrict, on
  // appending a char at a time here).
  std::string out(std::max<std::size_t>(1, std::min<std::size_t>(name.size(), 200)), '_');
  for (std::size_t i = 0; i < name.size() && i < out.size(); ++i) {
    const char c = name[i];
    const auto u = static_cast<unsigned char>(c);
    const bool bad = u < 0x20 || u == 0x7f || std::string_view("/\\ \t<>:\"|?*'`$&;()[]{}!#~").find(c) != std::string_view::npos;
    const bool leading = i == 0 && (c == '.' || c == '-');
    out[i] = bad || leading ? '_' : c;
  }
  return out;
}

std::vector<Cell> expand_grid(const GridSpec& spec) {
  validate(spec);
  std::size_t configs = 1;
  for (const Param& p : spec.params) {
    if (configs > 1'000'000 / p.values.size()) throw GridError("the grid has more than a million cells");
    configs *= p.values.size();
  }
  std::vector<Cell> cells;
  std::set<std::string> dirs;
  for (std::size_t k = 0; k < configs; ++k) {
    // k in mixed radix, the last param the fastest digit.
    std::vector<std::pair<std::string, std::string>> values(spec.params.size());
    std::size_t rest = k;
    for (std::size_t p = spec.params.size(); p-- > 0;) {
      const auto& list = spec.params[p].values;
      values[p] = {spec.params[p].name, list[rest % list.size()]};
      rest /= list.size();
    }
    if (excluded(values, spec.excludes)) continue;
    std::string config;
    for (const auto& [n, v] : values) config += fmt::format("{}{}={}", config.empty() ? "" : ",", n, v);
    for (int rep = 1; rep <= spec.repeat; ++rep) {
      Cell cell;
      cell.index = cells.size();
      cell.values = values;
      cell.rep = rep;
      cell.config = config;
      cell.name = spec.repeat > 1 ? fmt::format("{},rep={}", config, rep) : config;
      // Two names may clean up to one folder ("a/b" and "a_b"): the later one gets its index.
      cell.dir = safe_dir_name(cell.name);
      if (!dirs.insert(cell.dir).second) {
        cell.dir = fmt::format("{}~{}", cell.dir, cell.index);
        dirs.insert(cell.dir);
      }
      for (const std::string& arg : spec.command) cell.command.push_back(substitute(arg, values));
      cells.push_back(std::move(cell));
    }
  }
  if (cells.empty()) throw GridError("every combination of the grid is excluded");
  return cells;
}

}  // namespace gpuwatch::matrix
