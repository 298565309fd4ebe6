// The matrix's TOML grid parser (--grid FILE.toml) on arbitrary text: it
// must accept or throw GridError naming the file, never crash; what it
// accepts must be a grid the matrix can check: every param an identifier
// with distinct, non-empty values, every exclude naming them; planned, it is
// within the matrix's limits or refused.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "matrix/grid_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuwatch::matrix;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  GridFile grid;
  try {
    grid = parse_grid_toml(text, "fuzz.toml");
  } catch (const GridError& e) {
    if (std::string_view(e.what()).substr(0, 9) != "fuzz.toml") __builtin_trap();
    return 0;
  }
  if (grid.params.empty()) __builtin_trap();
  GridSpec spec;
  spec.params = grid.params;
  spec.excludes = grid.excludes;
  for (const Param& p : grid.params) {
    if (!is_param_name(p.name) || p.values.empty()) __builtin_trap();
    spec.command.push_back("{" + p.name + "}");
  }
  validate(spec);  // throws (uncaught: a crash) on a grid the parser should have refused
  // Planned within the limits or refused, never allocated without bound.
  try {
    const GridPlan plan(spec);
    if (plan.size() == 0 || plan.size() > kMaxCells) __builtin_trap();
    if (plan.cell(plan.size() - 1).index != plan.size() - 1) __builtin_trap();
  } catch (const GridError&) {
  }
  return 0;
}
