# Registers one ctest test per GoogleTest suite of a test binary: unit.<Suite>,
# which runs `<binary> --gtest_filter=<Suite>.*`. Run after each link of the
# binary (tests/CMakeLists.txt), it writes the file that ctest includes.
#   TEST_BINARY   the linked test executable
#   OUTPUT        the ctest file to write (a TEST_INCLUDE_FILES entry)
#   ENVIRONMENT   the tests' ENVIRONMENT property, its entries joined by "|"
#                 (a ";" would split the custom command's argument)
# One process per suite instead of one per test (gtest_discover_tests): about
# 900 tests start as about 200 processes, which under the sanitizers is minutes
# less of loading and shadow-memory set-up; a failure still names the test.
cmake_minimum_required(VERSION 3.22)

execute_process(COMMAND "${TEST_BINARY}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE status ERROR_VARIABLE errors
                TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TEST_BINARY} --gtest_list_tests failed (${status}): ${errors}")
endif()

# The listing names each suite flush left, ending in a dot ("Suite." or
# "Instance/Suite.  # TypeParam = ..."), and its tests indented below it.
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES suites)
if(NOT suites)
  message(FATAL_ERROR "${TEST_BINARY} lists no test suite")
endif()

string(REPLACE "|" ";" environment "${ENVIRONMENT}")
set(script "# Written by cmake/gtest_suites.cmake from ${TEST_BINARY} --gtest_list_tests.\n")
foreach(suite IN LISTS suites)
  string(APPEND script "add_test([=[unit.${suite}]=] [=[${TEST_BINARY}]=] [=[--gtest_filter=${suite}.*]=])\n"
                       "set_tests_properties([=[unit.${suite}]=] PROPERTIES ENVIRONMENT [=[${environment}]=] TIMEOUT 300)\n")
endforeach()
file(WRITE "${OUTPUT}" "${script}")
