#include "matrix/grid.h"

#include <gtest/gtest.h>

namespace gpuwatch::matrix {
namespace {

GridSpec spec(std::vector<Param> params, std::vector<std::string> command, int repeat = 1) {
  GridSpec s;
  s.params = std::move(params);
  s.command = std::move(command);
  s.repeat = repeat;
  return s;
}

TEST(MatrixGrid, ParsesParams) {
  const Param p = parse_param("optimizer=adamw,sgd");
  EXPECT_EQ(p.name, "optimizer");
  EXPECT_EQ(p.values, (std::vector<std::string>{"adamw", "sgd"}));
  EXPECT_EQ(parse_param("lr=1e-3").values, std::vector<std::string>{"1e-3"});
  // A value may hold '=' and '/': only the first '=' splits.
  EXPECT_EQ(parse_param("path=a=b,c/d").values, (std::vector<std::string>{"a=b", "c/d"}));
}

TEST(MatrixGrid, RejectsBadParams) {
  for (const char* bad : {"noequals", "=1,2", "1x=1", "a-b=1", "x=", "x=1,,2", "x=1,", "x=1,1"}) {
    EXPECT_THROW(parse_param(bad), GridError) << bad;
  }
}

TEST(MatrixGrid, ExpandsTheProductFirstParamSlowest) {
  const auto cells = expand_grid(spec({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}}, {"run", "--a={a}", "{b}"}));
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0].name, "a=1,b=x");
  EXPECT_EQ(cells[1].name, "a=1,b=y");
  EXPECT_EQ(cells[3].name, "a=2,b=x");
  EXPECT_EQ(cells[5].command, (std::vector<std::string>{"run", "--a=2", "z"}));
  for (std::size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(cells[i].index, i);
}

TEST(MatrixGrid, RepeatsShareTheirConfiguration) {
  const auto cells = expand_grid(spec({{"a", {"1", "2"}}}, {"echo", "{a}"}, 3));
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0].name, "a=1,rep=1");
  EXPECT_EQ(cells[2].name, "a=1,rep=3");
  EXPECT_EQ(cells[2].config, "a=1");
  EXPECT_EQ(cells[3].rep, 1);
  EXPECT_EQ(cells[3].config, "a=2");
}

TEST(MatrixGrid, SubstitutesOnlyPlaceholders) {
  const std::vector<std::pair<std::string, std::string>> v = {{"a", "1"}, {"b", "two"}};
  EXPECT_EQ(substitute("{a}-{b}-{a}", v), "1-two-1");
  // The shell's ${HOME}, brace ranges and awk programs are left alone.
  EXPECT_EQ(substitute("${HOME} {1..3} {print $1}x", {{"print", "no"}}), "${HOME} {1..3} {print $1}x");
  EXPECT_EQ(substitute("{{a}} {}", v), "{a} {}");
  EXPECT_THROW(substitute("{c}", v), GridError);
}

TEST(MatrixGrid, ValidatesTheDefinition) {
  EXPECT_THROW(validate(spec({}, {"echo"})), GridError);                                   // no param
  EXPECT_THROW(validate(spec({{"a", {"1"}}}, {})), GridError);                             // no command
  EXPECT_THROW(validate(spec({{"a", {"1"}}}, {"echo", "{x}"})), GridError);                // unknown placeholder
  EXPECT_THROW(validate(spec({{"a", {"1"}}, {"b", {"2"}}}, {"echo", "{a}"})), GridError);  // b never used
  EXPECT_THROW(validate(spec({{"a", {"1"}}, {"a", {"2"}}}, {"echo", "{a}"})), GridError);  // twice
  EXPECT_THROW(validate(spec({{"rep", {"1"}}}, {"echo", "{rep}"})), GridError);            // reserved
  EXPECT_THROW(validate(spec({{"a", {}}}, {"echo", "{a}"})), GridError);                   // no values
  EXPECT_THROW(validate(spec({{"a", {"1"}}}, {"echo", "{a}"}, 0)), GridError);             // repeat 0
  EXPECT_NO_THROW(validate(spec({{"a", {"1"}}}, {"sh", "-c", "echo {a} ${HOME}"})));
  try {
    validate(spec({{"a", {"1"}}}, {"echo", "{x}"}));
  } catch (const GridError& e) {
    EXPECT_NE(std::string(e.what()).find("{x}"), std::string::npos) << e.what();
  }
}

TEST(MatrixGrid, DirectoryNamesAreSafeAndUnique) {
  EXPECT_EQ(safe_dir_name("model=a/b,lr=0.1"), "model=a_b,lr=0.1");
  EXPECT_EQ(safe_dir_name(".hidden"), "_hidden");
  EXPECT_EQ(safe_dir_name("-x"), "_x");
  EXPECT_EQ(safe_dir_name("a b\n*"), "a_b__");
  EXPECT_EQ(safe_dir_name(std::string(300, 'x')).size(), 200u);
  EXPECT_EQ(safe_dir_name(""), "_");
  // "a/b" and "a_b" clean up to one name: the later cell gets its index.
  const auto cells = expand_grid(spec({{"m", {"a/b", "a_b"}}}, {"echo", "{m}"}));
  EXPECT_EQ(cells[0].dir, "m=a_b");
  EXPECT_EQ(cells[1].dir, "m=a_b~1");
}

}  // namespace
}  // namespace gpuwatch::matrix
