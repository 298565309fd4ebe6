#!/usr/bin/env bash
# The whole test suite, no GPU needed (NVML is a fake library the tests build):
#  1. the sanitizer build (clang, address and undefined-behaviour sanitizers):
#     every unit and end-to-end test runs once, here, and every fuzz target
#     briefly (the fuzz targets are built in the same folder);
#  2. the plain build (GCC at -O2, as a user's or packager's): it must compile
#     with warnings as errors, and runs the tests that cannot run under the
#     sanitizers (the libtorch and CUDA bench workers, the installed tree) and
#     a smoke test of the GCC-built program.
# Warnings are errors here (GPUWATCH_WERROR), unlike in a user's or packager's
# build. Each step's time is printed at the end (docs/install.md, "The test
# suite's time").
#   scripts/test.sh          everything
#   scripts/test.sh --quick  the sanitizer build and its tests only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# Seconds each step took, printed by the EXIT trap whether the suite passes or not.
step_times=() step_name="" step_started=0
step() {
  local now=$SECONDS
  if [ -n "$step_name" ]; then step_times+=("$(printf '%6d s  %s' $((now - step_started)) "$step_name")"); fi
  step_name=$1 step_started=$now
  if [ -n "$1" ]; then echo "== $1 =="; fi
}
report_times() {
  step ""
  echo "== time per step =="
  printf '%s\n' "${step_times[@]}"
  printf '%6d s  in all\n' "$SECONDS"
}
trap report_times EXIT

# The test tools and the bench workers' toolkits, when a package is missing.
step "packages"
scripts/install-deps.sh --all --if-missing

# Ninja keeps a log of what each compile and link took (<dir>/.ninja_log; see
# docs/install.md, "Where the test suite's time goes"). A build folder made by
# another generator or compiler is started over.
configure() {
  local dir=$1 compiler=$2 flags=$3; shift 3
  if [ -f "$dir/CMakeCache.txt" ] && { ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt" ||
       ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=.*/$compiler\$" "$dir/CMakeCache.txt"; }; then
    rm -rf "$dir"
  fi
  local cc=gcc
  if [ "$compiler" = clang++ ]; then cc=clang; fi
  CC=$cc CXX=$compiler cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
    -DGPUWATCH_TESTS=ON "$@" >/dev/null
}

# STYLE's limit on function length (docs/install.md, "Function length"); the
# layers are checked by the build itself (cmake/check_layers.cmake).
step "functions over 80 lines"
scripts/long-functions.py --check

# Both builds are unity builds (a few sources per compiler run, which compiles
# the library in about a third of the time). Unity builds break on names that
# two sources both define at file level, but only for the pairs that happen to
# share a batch: this check finds every such pair in seconds, before a build would.
step "unity-build name check"
scripts/unity-check.sh

# clang, not GCC, for the sanitizers: at -O1 it compiles an instrumented source
# in about a third of GCC's time at -O2 (src/matrix's first unity batch: 17 s
# against 54 s). Line tables only (-g1): sanitizer and test-failure stack
# traces keep their file:line.
step "sanitizer build (clang; address + undefined behaviour; tests and fuzz targets)"
configure build-sanitize clang++ "-O1 -g1 -DNDEBUG" -DGPUWATCH_SANITIZE=ON -DGPUWATCH_FUZZ=ON \
  -DGPUWATCH_BENCH=OFF -DGPUWATCH_BENCH_TORCH=OFF -DGPUWATCH_BENCH_CUDA=OFF -DCMAKE_UNITY_BUILD=ON
cmake --build build-sanitize -j"$jobs"
# Three tests per core: the end-to-end tests mostly wait on recorders, their
# sampling clocks and child processes (on 2 cores, 160 s of CPU in 345 s at -j2;
# at -j6 the same tests took 157 s).
step "tests under the sanitizers"
(cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j$((jobs * 3)))
if [ "${1:-}" != "--quick" ]; then
  step "fuzz targets, ${FUZZ_SECONDS:-10} s each"
  FUZZ_BUILD_DIR=build-sanitize FUZZ_SECONDS=${FUZZ_SECONDS:-10} scripts/fuzz-smoke.sh
  # The bench workers (libtorch, CUDA) are built and tested here only: under the
  # sanitizers they would cost the longest compiles of the project and test
  # only the toolkits' code. The unit tests are not built again.
  step "plain build (GCC -O2, the bench workers)"
  configure build g++ "-O2 -DNDEBUG" -DGPUWATCH_BENCH=ON -DGPUWATCH_UNIT_TESTS=OFF -DCMAKE_UNITY_BUILD=ON
  cmake --build build -j"$jobs"
  step "plain-build tests"
  (cd build && ctest --output-on-failure -j"$jobs" -L plain)
fi
