#!/usr/bin/env bash
# Compiles every library source as one translation unit, and the program's
# (src/cli) as another, syntax only (about 25 s), and fails on any error. The
# builds of scripts/test.sh and the fuzz targets are unity builds
# (CMAKE_UNITY_BUILD), which put a few sources of one target into one compiler
# run: two helpers or constants of one name at file level (in unnamed
# namespaces, too) then collide, but only when their files share a batch, and
# the batches shift whenever a file is added. One unit per target shows every
# such collision at once, whatever the batches are today.
#   scripts/unity-check.sh
# Sources that include <curses.h> (its macros, e.g. move(y, x), clash with
# ordinary names) are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -isystem: warnings in cairo's and glib's headers are theirs, not ours.
read -ra cairo_includes <<<"$(pkg-config --cflags-only-I cairo | sed 's/-I/-isystem /g')"

# check_unit NAME FILE...: the files as one unit; its message, or its errors, in $work/NAME.out.
check_unit() {
  local name=$1; shift
  local unit=$work/$name.cpp log=$work/$name.log
  for f in "$@"; do
    if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<curses\.h>' "$f"; then continue; fi
    echo "#include \"$root/$f\""
  done >"$unit"
  if ! g++ -std=c++20 -fsyntax-only -I"$root/src" "${cairo_includes[@]}" -DGPUWATCH_VERSION='"x"' \
      -DGPUWATCH_MODULE_DIR_FROM_BIN='"x"' "$unit" >"$log" 2>&1; then
    # The first error of each collision, with the definition it collides with.
    { grep -E 'error|previous|note: candidates' "$log" | sed "s|$root/||" | awk '!seen[$0]++' | head -60
      echo "unity-check: the $name's sources do not compile as one unit: rename one of each pair" \
        "of names above, or give the thing one owner in a header"; } >"$work/$name.out"
    return 1
  fi
  echo "unity-check: $(wc -l <"$unit") sources of the $name compile as one unit" >"$work/$name.out"
}

mapfile -t library < <(git ls-files 'src/*.cpp' | grep -v -e '^src/cli/')
mapfile -t program < <(git ls-files 'src/cli/*.cpp')
# Both at once: one compiler run each, on a core each.
check_unit library "${library[@]}" & library_check=$!
check_unit program "${program[@]}" & program_check=$!
status=0
wait "$library_check" || status=1
wait "$program_check" || status=1
if [ "$status" = 0 ]; then cat "$work/library.out" "$work/program.out"; else cat "$work/library.out" "$work/program.out" >&2; fi
exit "$status"
