#include "matrix/grid.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

namespace gpuwatch::matrix {

namespace {

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

bool is_identifier(std::string_view s) {
  return !s.empty() && ident_start(s.front()) && std::all_of(s.begin(), s.end(), ident_char);
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

std::string group_thousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (auto pos = static_cast<std::ptrdiff_t>(digits.size()) - 3; pos > 0; pos -= 3) {
    digits.insert(static_cast<std::size_t>(pos), 1, ',');
  }
  return digits;
}

namespace {

// The product of the params' value counts, refused over kMaxCombinations
// with the count (or "more than" when it does not fit 64 bits) and the sizes.
std::uint64_t combination_count(const std::vector<Param>& params) {
  std::uint64_t product = 1;
  bool overflow = false;
  std::string sizes;
  for (const Param& p : params) {
    const std::uint64_t n = p.values.size();
    overflow = overflow || product > UINT64_MAX / n;
    product = overflow ? UINT64_MAX : product * n;
    sizes += fmt::format("{}{}", sizes.empty() ? "" : " x ", n);
  }
  if (product > kMaxCombinations) {
    throw GridError(fmt::format(
        "the grid is too large: its params make {}{} combinations ({} values), over the limit of {} "
        "(a matrix has at most {} cells); give fewer values",
        overflow ? "more than " : "", group_thousands(product), sizes, group_thousands(kMaxCombinations),
        group_thousands(kMaxCells)));
  }
  return product;
}

// The excludes as (param position, value position) pairs, so that a
// combination is tested by its digits without making its strings.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> exclude_digits(const GridSpec& spec) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> out;
  for (const Values& ex : spec.excludes) {
    auto& pairs = out.emplace_back();
    for (const auto& pair : ex) {  // no structured binding: clang before 16 cannot capture one
      const std::string& name = pair.first;
      const auto p = static_cast<std::size_t>(
          std::find_if(spec.params.begin(), spec.params.end(), [&](const Param& q) { return q.name == name; }) -
          spec.params.begin());
      const auto& list = spec.params[p].values;
      pairs.emplace_back(p, static_cast<std::size_t>(std::find(list.begin(), list.end(), pair.second) - list.begin()));
    }
  }
  return out;
}

// Mixed radix, the last param the fastest digit: digits[p] is the position
// of param p's value in combination k.
void digits_of(std::uint64_t k, const std::vector<Param>& params, std::vector<std::size_t>& digits) {
  digits.resize(params.size());
  for (std::size_t p = params.size(); p-- > 0;) {
    digits[p] = static_cast<std::size_t>(k % params[p].values.size());
    k /= params[p].values.size();
  }
}

}  // namespace

GridPlan::GridPlan(GridSpec spec) : spec_(std::move(spec)) {
  validate(spec_);
  const std::uint64_t combinations = combination_count(spec_.params);
  const auto excludes = exclude_digits(spec_);
  const auto repeat = static_cast<std::uint64_t>(spec_.repeat);
  std::uint64_t kept = 0;
  std::vector<std::size_t> digits;
  for (std::uint64_t k = 0; k < combinations; ++k) {
    digits_of(k, spec_.params, digits);
    const bool out = std::any_of(excludes.begin(), excludes.end(), [&](const auto& ex) {
      return std::all_of(ex.begin(), ex.end(), [&](const auto& pv) { return digits[pv.first] == pv.second; });
    });
    if (out) continue;
    // Counted to the end, for the message; kept only up to the limit.
    if (++kept * repeat <= kMaxCells) configs_.push_back(static_cast<std::uint32_t>(k));
  }
  if (kept == 0) throw GridError("every combination of the grid is excluded");
  if (kept * repeat > kMaxCells) {
    throw GridError(fmt::format(
        "the grid is too large: {} cells ({} combinations{} x --repeat {}), over the limit of {} cells a matrix "
        "may have; give fewer values or repeats, or split it into several matrices",
        group_thousands(kept * repeat), group_thousands(kept), spec_.excludes.empty() ? "" : " left by [[exclude]]",
        spec_.repeat, group_thousands(kMaxCells)));
  }
  // Two names may clean up to one folder ("a/b" and "a_b"): the later one
  // gets its index. Found once here, over every name; only the few
  // suffixed cells are remembered.
  std::unordered_set<std::string> dirs;
  for (std::size_t i = 0; i < size(); ++i) {
    const Cell c = named(i);
    if (!dirs.insert(c.dir).second) {
      suffixed_.push_back(i);
      dirs.insert(fmt::format("{}~{}", c.dir, i));
    }
  }
}

Values GridPlan::values_of(std::uint64_t combination) const {
  std::vector<std::size_t> digits;
  digits_of(combination, spec_.params, digits);
  Values values;
  for (std::size_t p = 0; p < spec_.params.size(); ++p) {
    values.emplace_back(spec_.params[p].name, spec_.params[p].values[digits[p]]);
  }
  return values;
}

Cell GridPlan::named(std::size_t index) const {
  const auto repeat = static_cast<std::size_t>(spec_.repeat);
  Cell cell;
  cell.index = index;
  cell.values = values_of(configs_.at(index / repeat));
  cell.rep = static_cast<int>(index % repeat) + 1;
  for (const auto& [n, v] : cell.values) cell.config += fmt::format("{}{}={}", cell.config.empty() ? "" : ",", n, v);
  cell.name = spec_.repeat > 1 ? fmt::format("{},rep={}", cell.config, cell.rep) : cell.config;
  cell.dir = safe_dir_name(cell.name);
  return cell;
}

Cell GridPlan::cell(std::size_t index) const {
  Cell cell = named(index);
  if (std::binary_search(suffixed_.begin(), suffixed_.end(), index)) cell.dir = fmt::format("{}~{}", cell.dir, index);
  for (const std::string& arg : spec_.command) cell.command.push_back(substitute(arg, cell.values));
  return cell;
}

std::vector<Cell> expand_grid(const GridSpec& spec) {
  const GridPlan plan(spec);
  std::vector<Cell> cells;
  cells.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) cells.push_back(plan.cell(i));
  return cells;
}

}  // namespace gpuwatch::matrix
