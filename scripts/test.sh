#!/usr/bin/env bash
# The whole test suite: builds gpuwatch twice (plain, and with address and
# undefined-behaviour sanitizers) and runs every unit and end-to-end test in
# each, then runs every fuzz target briefly. No GPU needed: NVML is a fake
# library the tests build. Warnings are errors here (GPUWATCH_WERROR), unlike
# in a user's or packager's build. Each step's time is printed at the end.
#   scripts/test.sh          everything
#   scripts/test.sh --quick  the plain build only
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

# Line tables only (-g1): sanitizer and test-failure stack traces keep their
# file:line, and the compiler does about 40 % less work than with full -g.
debug_flags="-O2 -g1 -DNDEBUG"

# Ninja keeps a log of what each compile and link took (<dir>/.ninja_log; see
# docs/install.md, "Where the test suite's time goes"). A build folder made by
# another generator is started over.
configure() {
  local dir=$1; shift
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$debug_flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$debug_flags" \
    -DGPUWATCH_TESTS=ON "$@" >/dev/null
}

# STYLE's limit on function length (docs/install.md, "Function length"); the
# layers are checked by the build itself (cmake/check_layers.cmake).
step "functions over 80 lines"
scripts/long-functions.py --check

step "plain build"
configure build -DGPUWATCH_BENCH=ON
cmake --build build -j"$jobs"
step "plain tests"
(cd build && ctest --output-on-failure -j"$jobs")
if [ "${1:-}" != "--quick" ]; then
  # The second and third builds are unity builds (a few sources per compiler
  # run), which compile the library in about a third of the time. The plain build above stays
  # one file at a time, as a user's or packager's, so a missing #include shows.
  # Unity builds break on names that two sources both define at file level,
  # but only for the pairs that happen to share a batch: this check finds
  # every such pair in seconds, before the build would.
  step "unity-build name check"
  scripts/unity-check.sh
  # The bench workers (libtorch, CUDA) are tested in the plain build: under the
  # sanitizers they would cost the longest compiles of the project and test
  # only the toolkits' code.
  step "sanitizer build (address + undefined behaviour)"
  configure build-sanitize -DGPUWATCH_SANITIZE=ON -DGPUWATCH_BENCH=OFF -DGPUWATCH_BENCH_TORCH=OFF \
    -DGPUWATCH_BENCH_CUDA=OFF -DCMAKE_UNITY_BUILD=ON
  cmake --build build-sanitize -j"$jobs"
  step "sanitizer tests"
  (cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs")
  step "fuzz targets, ${FUZZ_SECONDS:-15} s each"
  FUZZ_SECONDS=${FUZZ_SECONDS:-15} scripts/fuzz-smoke.sh
fi
