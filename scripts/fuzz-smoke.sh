#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/*_fuzz.cpp) with clang and runs each for
# FUZZ_SECONDS (default 20) on a scratch copy of its seed corpus
# fuzz/corpus/<name>/ (<name> = the file name without _fuzz), so that inputs
# the fuzzer finds never land in the repository; as many targets run at once as
# there are cores. Fails on any crash, leak,
# sanitizer report or timeout; the crashing input is kept in build-fuzz/crashes/.
#   scripts/fuzz-smoke.sh                      all targets, 20 s each
#   FUZZ_SECONDS=300 scripts/fuzz-smoke.sh     longer
#   scripts/fuzz-smoke.sh chunk_codec_fuzz     only the named targets
#   FUZZ_BUILD_DIR=build-sanitize scripts/fuzz-smoke.sh
#                                              in a build already configured with clang and
#                                              GPUWATCH_FUZZ=ON (scripts/test.sh's sanitizer build)
# Needs clang and libclang-rt-dev (scripts/install-deps.sh --tests installs them).
# Warnings are errors, as in scripts/test.sh (GPUWATCH_WERROR=OFF to relax).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-20}
jobs=$(nproc 2>/dev/null || echo 2)
build=${FUZZ_BUILD_DIR:+$(cd "$FUZZ_BUILD_DIR" && pwd)}
build=${build:-$root/build-fuzz}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz-smoke: clang++ not found; run scripts/install-deps.sh" >&2
  exit 1
fi

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for src in fuzz/*_fuzz.cpp; do
    targets+=("$(basename "$src" .cpp)")
  done
fi

# A build folder given by FUZZ_BUILD_DIR is used as it is configured.
if [ -z "${FUZZ_BUILD_DIR:-}" ]; then
  # A build dir configured with another compiler cannot be switched: start over.
  if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$build/CMakeCache.txt"; then
    rm -rf "$build"
  fi
  echo "== configure ($build) =="
  # Line tables only (-g1): crash stacks keep file:line at a fraction of full -g's cost.
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DGPUWATCH_FUZZ=ON -DGPUWATCH_TESTS=OFF -DGPUWATCH_BENCH=OFF -DCMAKE_UNITY_BUILD=ON -DGPUWATCH_WERROR="${GPUWATCH_WERROR:-ON}" >/dev/null
elif ! grep -q '^GPUWATCH_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz-smoke: $build is not configured with GPUWATCH_FUZZ=ON" >&2
  exit 1
fi
echo "== build: ${targets[*]} =="
# Only the fuzzers: each compiles just the sources it tests.
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuwatch-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/crashes"

# One target on a scratch copy of its corpus; its summary goes to $work/<target>.summary,
# which the loop below prints in order once all have run.
fuzz_one() {
  local t=$1 name=${1%_fuzz}
  local corpus=$work/$name summary=$work/$1.summary log=$build/crashes/$1.log
  mkdir -p "$corpus"
  if [ -d "fuzz/corpus/$name" ]; then
    cp -R "fuzz/corpus/$name/." "$corpus/"
  else
    echo "fuzz-smoke: warning: no seed corpus fuzz/corpus/$name" >&2
  fi
  echo "== $t: ${seconds}s on $(find "$corpus" -type f | wc -l) seed(s) ==" >"$summary"
  # -artifact_prefix keeps crash-* files out of the source tree.
  if (cd "$work" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$build/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$t-" "$corpus") >"$log" 2>&1; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$log" | sed 's/^/  /' >>"$summary" || true
    echo "  ok ($(find "$corpus" -type f | wc -l) corpus entries at the end)" >>"$summary"
  else
    { tail -n 40 "$log"; echo "  FAILED: $t (full log $log; input under $build/crashes/)"; } >>"$summary"
    touch "$work/$t.failed"
  fi
}

# Each fuzzer is one process on one core: run as many at once as there are cores,
# so the whole smoke takes FUZZ_SECONDS x targets / cores instead of x targets.
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
  cat "$work/$t.summary"
  if [ -e "$work/$t.failed" ]; then failed+=("$t"); fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-smoke: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: all ${#targets[@]} target(s) ran ${seconds}s without a crash"
