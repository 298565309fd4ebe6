// The grid of `gpuwatch matrix`: the product of the --param lists, one cell
// per combination (times --repeat), and the command with each cell's values
// put in for its {NAME} placeholders. Pure functions: no I/O, so that the
// rules are tested without running anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::matrix {

// A mistake in the grid's definition (a usage error: exit 2).
class GridError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Param {
  std::string name;
  std::vector<std::string> values;
};

// (param, value) pairs: a cell's values, or one excluded combination.
using Values = std::vector<std::pair<std::string, std::string>>;

struct GridSpec {
  std::vector<Param> params;         // in the order given: the first varies slowest
  // Combinations left out (--grid's [[exclude]]): a configuration that has
  // every (param, value) of one of them is not in the grid.
  std::vector<Values> excludes;
  int repeat = 1;
  std::vector<std::string> command;  // with its {NAME} placeholders
};

struct Cell {
  std::size_t index = 0;  // position in the grid, 0-based
  std::vector<std::pair<std::string, std::string>> values;  // (param, value), in param order
  int rep = 1;                      // 1..repeat
  std::string name;                 // "optimizer=adamw,sparsity=0.7" (+ ",rep=2" when repeat > 1)
  std::string config;               // the name without the rep: repeats share it
  std::string dir;                  // a file-system-safe, unique folder name
  std::vector<std::string> command; // placeholders replaced
};

// Letters, digits and '_', not first a digit.
bool is_param_name(std::string_view name);

// "NAME=V1,V2,..." -> Param. Throws GridError on a missing '=', a name that
// is not an identifier (letters, digits, '_', not first a digit), an empty
// list or value, or a value listed twice.
Param parse_param(std::string_view text);

// Checks the whole definition: at least one param, no name twice, "rep"
// reserved, repeat >= 1, a command, every {NAME} known and every param
// used somewhere in the command, every exclude naming known params and
// values. Throws GridError naming what is wrong.
void validate(const GridSpec& spec);

// The most cells a matrix may have, and the most combinations of its params'
// values (before [[exclude]]) that are gone through to count them. A grid
// over either is refused (a GridError with the count and the limit) before
// anything is allocated per cell: a cell is a recorded run, and 100,000 of
// them is already months of machine time at a minute each.
inline constexpr std::size_t kMaxCells = 100'000;
inline constexpr std::uint64_t kMaxCombinations = 10'000'000;

// The cells of a grid, planned without being held: the constructor
// validates the grid, counts its cells (refusing it over the limits) and
// keeps only the numbers of the combinations not excluded (4 bytes each)
// and which folders need a suffix; cell(i) makes cell i when asked.
class GridPlan {
 public:
  // Calls validate(); a GridError over the limits, or when every
  // combination is excluded.
  explicit GridPlan(GridSpec spec);

  [[nodiscard]] std::size_t size() const { return configs_.size() * static_cast<std::size_t>(spec_.repeat); }
  // Cell `index` (< size()): first param slowest, repeats of one
  // configuration together, the excluded configurations left out (an index
  // counts only the cells kept).
  [[nodiscard]] Cell cell(std::size_t index) const;
  [[nodiscard]] const GridSpec& spec() const { return spec_; }

 private:
  Values values_of(std::uint64_t combination) const;
  // The cell without its command, its folder as its name cleans up.
  Cell named(std::size_t index) const;

  GridSpec spec_;
  std::vector<std::uint32_t> configs_;  // the kept combinations' numbers, in grid order
  std::vector<std::size_t> suffixed_;   // cells whose folder gets "~INDEX", sorted
};

// Every cell of GridPlan(spec), for small grids and tests.
std::vector<Cell> expand_grid(const GridSpec& spec);

// "1,000,000": counts in messages.
std::string group_thousands(std::uint64_t n);

// `arg` with each {NAME} replaced by its value. A placeholder is '{', an
// identifier, '}' not preceded by '$' (so the shell's ${HOME} and awk's
// {print $1} stay as they are); "{{" and "}}" are literal braces.
// Throws GridError on a placeholder no param names.
std::string substitute(std::string_view arg, const std::vector<std::pair<std::string, std::string>>& values);

// The placeholder names used in `arg`, in order, with repeats.
std::vector<std::string> placeholders(std::string_view arg);

// A folder name from a cell name: '/', '\', controls, blanks, shell and
// Windows specials, and a leading '.' or '-' become '_'; at most 200 bytes.
std::string safe_dir_name(std::string_view name);

}  // namespace gpuwatch::matrix
