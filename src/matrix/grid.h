// The grid of `gpuwatch matrix`: the product of the --param lists, one cell
// per combination (times --repeat), and the command with each cell's values
// put in for its {NAME} placeholders. Pure functions: no I/O, so that the
// rules are tested without running anything.
#pragma once

#include <cstddef>
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

// Every cell, first param slowest, repeats of one configuration together,
// the excluded configurations left out (an index counts only the cells
// kept). Calls validate() first; a grid whose every combination is
// excluded is a GridError.
std::vector<Cell> expand_grid(const GridSpec& spec);

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
