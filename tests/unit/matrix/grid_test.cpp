#include "matrix/grid.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

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


// A param of n distinct values "v0".."v{n-1}".
Param values(std::string name, std::size_t n) {
  Param p{std::move(name), {}};
  for (std::size_t i = 0; i < n; ++i) p.values.push_back("v" + std::to_string(i));
  return p;
}

// The message of the GridError that planning `s` throws; "" when it plans.
std::string plan_error(const GridSpec& s) {
  try {
    GridPlan plan(s);
  } catch (const GridError& e) {
    return e.what();
  }
  return "";
}

TEST(MatrixGridPlan, AGridOverTheCombinationLimitIsRefusedWithItsCount) {
  // Nine params of ten values: a billion cells (issue 22: allocated until std::bad_alloc).
  GridSpec s;
  for (int p = 0; p < 9; ++p) {
    s.params.push_back(values(fmt::format("p{}", p), 10));
    s.command.push_back(fmt::format("{{p{}}}", p));
  }
  const std::string e = plan_error(s);
  EXPECT_NE(e.find("1,000,000,000 combinations"), std::string::npos) << e;
  EXPECT_NE(e.find("10 x 10 x 10"), std::string::npos) << e;
  EXPECT_NE(e.find("over the limit of 10,000,000"), std::string::npos) << e;
  EXPECT_NE(e.find("at most 100,000 cells"), std::string::npos) << e;
  // 70 params of two values: 2^70 does not fit 64 bits.
  GridSpec wide;
  for (int p = 0; p < 70; ++p) {
    wide.params.push_back(values(fmt::format("p{}", p), 2));
    wide.command.push_back(fmt::format("{{p{}}}", p));
  }
  EXPECT_NE(plan_error(wide).find("more than 18,446,744,073,709,551,615 combinations"), std::string::npos)
      << plan_error(wide);
}

TEST(MatrixGridPlan, AGridOverTheCellLimitIsRefusedWithItsCount) {
  const std::string e = plan_error(spec({values("a", 1000)}, {"echo", "{a}"}, 1000));
  EXPECT_NE(e.find("1,000,000 cells (1,000 combinations x --repeat 1000)"), std::string::npos) << e;
  EXPECT_NE(e.find("over the limit of 100,000 cells"), std::string::npos) << e;
  // Excludes count: 2,000 combinations less the 1,000 with b=v1, times 100, is at the limit.
  GridSpec s = spec({values("a", 1000), values("b", 2)}, {"echo", "{a}", "{b}"}, 100);
  s.excludes = {{{"b", "v1"}}};
  EXPECT_EQ(plan_error(s), "");
  s.repeat = 101;
  EXPECT_NE(plan_error(s).find("101,000 cells (1,000 combinations left by [[exclude]] x --repeat 101)"),
            std::string::npos)
      << plan_error(s);
}

TEST(MatrixGridPlan, PlansTheLimitLazilyCellByCell) {
  const GridPlan plan(spec({values("a", 1000), values("b", 100)}, {"run", "{a}", "--b={b}"}));
  ASSERT_EQ(plan.size(), kMaxCells);
  const Cell last = plan.cell(kMaxCells - 1);
  EXPECT_EQ(last.name, "a=v999,b=v99");
  EXPECT_EQ(last.command, (std::vector<std::string>{"run", "v999", "--b=v99"}));
  EXPECT_EQ(plan.cell(101).name, "a=v1,b=v1");
  EXPECT_THROW((void)plan.cell(kMaxCells), std::out_of_range);
}

TEST(MatrixGridPlan, ExcludedAndRepeatedCellsKeepTheirNumbering) {
  GridSpec s = spec({{"a", {"1", "2", "3"}}, {"b", {"x", "y"}}}, {"echo", "{a}{b}"}, 2);
  s.excludes = {{{"a", "2"}}, {{"a", "3"}, {"b", "x"}}};
  const GridPlan plan(s);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.size(); ++i) names.push_back(plan.cell(i).name);
  EXPECT_EQ(names, (std::vector<std::string>{"a=1,b=x,rep=1", "a=1,b=x,rep=2", "a=1,b=y,rep=1", "a=1,b=y,rep=2",
                                             "a=3,b=y,rep=1", "a=3,b=y,rep=2"}));
  s.excludes.push_back({{"a", "1"}});
  s.excludes.push_back({{"b", "y"}});
  EXPECT_EQ(plan_error(s), "every combination of the grid is excluded");
  EXPECT_EQ(group_thousands(0), "0");
  EXPECT_EQ(group_thousands(999), "999");
  EXPECT_EQ(group_thousands(1000), "1,000");
  EXPECT_EQ(group_thousands(1234567), "1,234,567");
}

}  // namespace
}  // namespace gpuwatch::matrix
