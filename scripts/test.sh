#!/usr/bin/env bash
# The whole test suite: builds gpuwatch twice (plain, and with address and
# undefined-behaviour sanitizers) and runs every unit and end-to-end test in
# each, then runs every fuzz target briefly. No GPU needed: NVML is a fake
# library the tests build. Warnings are errors here (GPUWATCH_WERROR), unlike
# in a user's or packager's build.
#   scripts/test.sh          everything
#   scripts/test.sh --quick  the plain build only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# The test tools and the bench workers' toolkits, when a package is missing.
scripts/install-deps.sh --all --if-missing

# Line tables only (-g1): sanitizer and test-failure stack traces keep their
# file:line, and the compiler does about 40 % less work than with full -g.
debug_flags="-O2 -g1 -DNDEBUG"

run_suite() {
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$debug_flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$debug_flags" \
    -DGPUWATCH_TESTS=ON -DGPUWATCH_BENCH=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs")
}

echo "== plain build =="
run_suite build
if [ "${1:-}" != "--quick" ]; then
  # The second and third builds are unity builds (a few sources per compiler
  # run), which compile the library in about a third of the time. The plain build above stays
  # one file at a time, as a user's or packager's, so a missing #include shows.
  # Unity builds break on names that two sources both define at file level,
  # but only for the pairs that happen to share a batch: this check finds
  # every such pair in seconds, before the build would.
  echo "== unity-build name check =="
  scripts/unity-check.sh
  echo "== address + undefined-behaviour sanitizers =="
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_suite build-sanitize -DGPUWATCH_SANITIZE=ON -DGPUWATCH_BENCH=OFF -DCMAKE_UNITY_BUILD=ON
  echo "== fuzz targets, ${FUZZ_SECONDS:-15} s each =="
  FUZZ_SECONDS=${FUZZ_SECONDS:-15} scripts/fuzz-smoke.sh
fi
