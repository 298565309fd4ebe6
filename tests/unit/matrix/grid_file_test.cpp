#include "matrix/grid_file.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch::matrix {
namespace {

constexpr const char* kGood = R"(# the brief's example
[params]
optimizer = ["adamw", "sgd"]
batch_size = [32, 64, 128]      # numbers and strings; numbers become their text
lr = [1e-3, 0.5]
amp = [true, false]

[[exclude]]
optimizer = "sgd"
batch_size = 128

[[exclude]]
lr = 0.5
)";

TEST(MatrixGridFile, ReadsParamsInFileOrder) {
  const GridFile g = parse_grid_toml(kGood, "grid.toml");
  ASSERT_EQ(g.params.size(), 4u);
  EXPECT_EQ(g.params[0].name, "optimizer");
  EXPECT_EQ(g.params[0].values, (std::vector<std::string>{"adamw", "sgd"}));
  EXPECT_EQ(g.params[1].name, "batch_size");
  EXPECT_EQ(g.params[1].values, (std::vector<std::string>{"32", "64", "128"}));
  EXPECT_EQ(g.params[2].values, (std::vector<std::string>{"0.001", "0.5"}));
  EXPECT_EQ(g.params[3].values, (std::vector<std::string>{"true", "false"}));
  ASSERT_EQ(g.excludes.size(), 2u);
  EXPECT_EQ(g.excludes[0], (Values{{"optimizer", "sgd"}, {"batch_size", "128"}}));
  EXPECT_EQ(g.excludes[1], (Values{{"lr", "0.5"}}));
}

TEST(MatrixGridFile, ExcludesLeaveTheirCellsOut) {
  const GridFile g = parse_grid_toml("[params]\nopt = [\"adamw\", \"sgd\"]\nbs = [32, 64, 128]\n"
                                     "[[exclude]]\nopt = \"sgd\"\nbs = 128\n",
                                     "g.toml");
  GridSpec spec;
  spec.params = g.params;
  spec.excludes = g.excludes;
  spec.command = {"train", "{opt}", "{bs}"};
  spec.repeat = 2;
  const auto cells = expand_grid(spec);
  ASSERT_EQ(cells.size(), 10u);  // (6 - 1) configurations, twice
  for (std::size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(cells[i].index, i);
    EXPECT_NE(cells[i].config, "opt=sgd,bs=128");
  }
  EXPECT_EQ(cells.back().name, "opt=sgd,bs=64,rep=2");
  EXPECT_EQ(cells.back().command, (std::vector<std::string>{"train", "sgd", "64"}));
}

TEST(MatrixGridFile, ExcludingEverythingIsAnError) {
  GridSpec spec;
  spec.params = {{"a", {"1"}}};
  spec.excludes = {{{"a", "1"}}};
  spec.command = {"x", "{a}"};
  EXPECT_THROW(expand_grid(spec), GridError);
  spec.excludes = {{{"b", "1"}}};
  EXPECT_THROW(validate(spec), GridError);  // an unknown param
  spec.excludes = {{{"a", "2"}}};
  EXPECT_THROW(validate(spec), GridError);  // an unknown value
}

std::string error_of(const std::string& text) {
  try {
    parse_grid_toml(text, "bad.toml");
  } catch (const GridError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MatrixGridFile, NamesFileAndLineOfEachError) {
  struct Case {
    const char* text;
    const char* error;  // the start of the message
  };
  const Case cases[] = {
      {"[params]\na = [1, 2\n", "bad.toml:"},                                      // syntax error
      {"a = [1]\n", "bad.toml: no [params]"},                                       // no [params]
      {"params = 3\n", "bad.toml:1: params: expected a table"},                     // [params] not a table
      {"[params]\n", "bad.toml:1: [params] lists no param"},                        // empty [params]
      {"[params]\na = 1\n", "bad.toml:2: param a: expected a list"},                // not a list
      {"[params]\na = []\n", "bad.toml:2: param a: the list is empty"},             // empty list
      {"[params]\na = [[1], 2]\n", "bad.toml:2: param a: expected a string, number or boolean, not a list"},
      {"[params]\na = [{x = 1}]\n", "bad.toml:2: param a: expected a string, number or boolean, not a table"},
      {"[params]\na = [1979-05-27]\n", "bad.toml:2: param a: expected a string, number or boolean, not a date"},
      {"[params]\na = [1, \"1\"]\n", "bad.toml:2: param a: the value '1' is listed twice"},
      {"[params]\na = [\"\"]\n", "bad.toml:2: param a: an empty value"},
      {"[params]\n\"a-b\" = [1]\n", "bad.toml:2: param 'a-b': a name is letters"},
      {"[params]\nrep = [1]\n", "bad.toml:2: param rep: 'rep' is reserved"},
      {"[params]\na = [1]\n[other]\nx = 1\n", "bad.toml:3: unknown key 'other'"},
      {"exclude = 3\n[params]\na = [1]\n", "bad.toml:1: exclude: expected tables"},
      {"exclude = [3]\n[params]\na = [1]\n", "bad.toml:1: exclude: expected a table"},
      {"[params]\na = [1]\n[[exclude]]\n", "bad.toml:3: exclude: names no param"},
      {"[params]\na = [1]\n[[exclude]]\nb = 1\n", "bad.toml:4: exclude: b is no param"},
      {"[params]\na = [1]\n[[exclude]]\na = 2\n", "bad.toml:4: exclude: a = 2 is no value of param a"},
      {"[params]\na = [1]\n[[exclude]]\na = [1]\n", "bad.toml:4: exclude a: expected a string, number or boolean"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(c.text);
    EXPECT_EQ(error.rfind(c.error, 0), 0u) << c.text << "\n-> " << error;
  }
}

TEST(MatrixGridFile, NeverCrashesOnJunk) {
  for (const char* junk : {"", "\xff\xfe", "[", "[[exclude]]\n", "[params]\na = [1]\n[[exclude]]\n[[exclude]]\na=1\n",
                           "\0", "[params]\na = [1,]\n"}) {
    try {
      parse_grid_toml(junk, "j.toml");
    } catch (const GridError&) {
    }
  }
}

}  // namespace
}  // namespace gpuwatch::matrix
