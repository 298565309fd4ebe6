#include "matrix/grid_file.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

// Header-only, with exceptions: Debian's tomlplusplus.pc asks for its shared
// library, which gpuwatch does not link.
#undef TOML_HEADER_ONLY
#define TOML_HEADER_ONLY 1
#undef TOML_EXCEPTIONS
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

namespace gpuwatch::matrix {

namespace {

// "SOURCE:LINE: text", or "SOURCE: text" where toml++ knows no line.
GridError file_error(std::string_view source, const toml::source_region& where, std::string_view text) {
  if (where.begin.line == 0) return GridError(fmt::format("{}: {}", source, text));
  return GridError(fmt::format("{}:{}: {}", source, where.begin.line, text));
}

bool before(const toml::source_region& a, const toml::source_region& b) {
  return std::pair(a.begin.line, a.begin.column) < std::pair(b.begin.line, b.begin.column);
}

// A scalar as the grid's text: strings as they are, numbers and booleans
// as their text; anything else (arrays, tables, dates) is an error.
std::string scalar_text(const toml::node& node, std::string_view source, std::string_view what) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  throw file_error(source, node.source(),
                   fmt::format("{}: expected a string, number or boolean, not {}", what,
                               node.is_array() ? "a list" : node.is_table() ? "a table" : "a date or time"));
}

// The table's entries in the file's order (toml++ keeps them sorted by key).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (const auto& [k, v] : t) out.emplace_back(&k, &v);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return before(a.first->source(), b.first->source()); });
  return out;
}

Param read_param(const toml::key& key, const toml::node& node, std::string_view source) {
  Param p;
  p.name = std::string(key.str());
  if (!is_param_name(p.name)) {
    throw file_error(source, key.source(),
                     fmt::format("param '{}': a name is letters, digits and '_', not first a digit", p.name));
  }
  if (p.name == "rep") throw file_error(source, key.source(), "param rep: 'rep' is reserved for the repeat number");
  const auto* list = node.as_array();
  if (list == nullptr) {
    throw file_error(source, node.source(), fmt::format("param {}: expected a list of values, [\"a\", \"b\"]", p.name));
  }
  if (list->empty()) throw file_error(source, node.source(), fmt::format("param {}: the list is empty", p.name));
  for (const toml::node& v : *list) {
    std::string text = scalar_text(v, source, fmt::format("param {}", p.name));
    if (text.empty()) throw file_error(source, v.source(), fmt::format("param {}: an empty value", p.name));
    if (std::find(p.values.begin(), p.values.end(), text) != p.values.end()) {
      throw file_error(source, v.source(), fmt::format("param {}: the value '{}' is listed twice", p.name, text));
    }
    p.values.push_back(std::move(text));
  }
  return p;
}

Values read_exclude(const toml::node& node, const std::vector<Param>& params, std::string_view source) {
  const auto* t = node.as_table();
  if (t == nullptr) throw file_error(source, node.source(), "exclude: expected a table, [[exclude]] with NAME = VALUE lines");
  if (t->empty()) throw file_error(source, node.source(), "exclude: names no param");
  Values out;
  for (const auto& [k, v] : in_file_order(*t)) {
    const std::string name(k->str());
    const auto p = std::find_if(params.begin(), params.end(), [&](const Param& q) { return q.name == name; });
    if (p == params.end()) {
      throw file_error(source, k->source(), fmt::format("exclude: {} is no param of [params]", name));
    }
    std::string value = scalar_text(*v, source, fmt::format("exclude {}", name));
    if (std::find(p->values.begin(), p->values.end(), value) == p->values.end()) {
      throw file_error(source, v->source(), fmt::format("exclude: {} = {} is no value of param {}", name, value, name));
    }
    out.emplace_back(name, std::move(value));
  }
  return out;
}

}  // namespace

GridFile parse_grid_toml(std::string_view text, std::string_view source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw file_error(source, e.source(), e.description());
  }
  GridFile grid;
  const toml::node* params = root.get("params");
  if (params == nullptr) throw GridError(fmt::format("{}: no [params] table", source));
  const auto* params_table = params->as_table();
  if (params_table == nullptr) throw file_error(source, params->source(), "params: expected a table, [params]");
  if (params_table->empty()) throw file_error(source, params->source(), "[params] lists no param");
  for (const auto& [k, v] : in_file_order(*params_table)) grid.params.push_back(read_param(*k, *v, source));
  for (const auto& [k, v] : in_file_order(root)) {
    if (k->str() == "params") continue;
    if (k->str() != "exclude") {
      throw file_error(source, k->source(), fmt::format("unknown key '{}': a grid file has [params] and [[exclude]]", k->str()));
    }
    const auto* list = v->as_array();
    if (list == nullptr) throw file_error(source, v->source(), "exclude: expected tables, [[exclude]]");
    for (const toml::node& ex : *list) grid.excludes.push_back(read_exclude(ex, grid.params, source));
  }
  return grid;
}

}  // namespace gpuwatch::matrix
