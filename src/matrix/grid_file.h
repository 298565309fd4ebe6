// `gpuwatch matrix --grid FILE.toml`: the grid's params and excluded
// combinations from a TOML file. A pure function (text in, grid or error
// out), so that it is tested and fuzzed without files:
//
//   [params]
//   optimizer = ["adamw", "sgd"]
//   batch_size = [32, 64, 128]      # numbers and strings; numbers become their text
//   [[exclude]]
//   optimizer = "sgd"
//   batch_size = 128
#pragma once

#include <string_view>
#include <vector>

#include "matrix/grid.h"

namespace gpuwatch::matrix {

struct GridFile {
  std::vector<Param> params;     // in the file's order: the first varies slowest
  std::vector<Values> excludes;  // each (param, value) as the grid's text
};

// Throws GridError "SOURCE:LINE: what is wrong" (SOURCE: the file's name as
// given) on a TOML syntax error, a missing or empty [params], a value that is
// not a string, integer, float or boolean, a value listed twice, a param name
// that is not an identifier, an unknown top-level key, or an exclude naming a
// param or value the file does not list.
GridFile parse_grid_toml(std::string_view text, std::string_view source);

}  // namespace gpuwatch::matrix
