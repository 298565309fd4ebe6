#!/usr/bin/env bash
# Compiles every library source as one translation unit, syntax only (about
# 10 s), and fails on any error. The sanitizer and fuzz builds are unity
# builds (CMAKE_UNITY_BUILD), which put a few sources into one compiler run:
# two helpers or constants of one name at file level (in unnamed namespaces,
# too) then collide, but only when their files share a batch, and the batches
# shift whenever a file is added. One unit with all of them shows every such
# collision at once, whatever the batches are today.
#   scripts/unity-check.sh
# src/cli/ (the program, not the library) and sources that include
# <curses.h> (its macros, e.g. move(y, x), clash with ordinary names) are
# left out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

unit=$(mktemp --suffix=.cpp)
log=$(mktemp)
trap 'rm -f "$unit" "$log"' EXIT

for f in $(git ls-files 'src/*.cpp' | grep -v -e '^src/cli/'); do
  if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<curses\.h>' "$f"; then continue; fi
  echo "#include \"$root/$f\""
done >"$unit"

# -isystem: warnings in cairo's and glib's headers are theirs, not ours.
read -ra cairo_includes <<<"$(pkg-config --cflags-only-I cairo | sed 's/-I/-isystem /g')"
if ! g++ -std=c++20 -fsyntax-only -I"$root/src" "${cairo_includes[@]}" -DGPUWATCH_VERSION='"x"' -DGPUWATCH_MODULE_DIR_FROM_BIN='"x"' "$unit" >"$log" 2>&1; then
  # The first error of each collision, with the definition it collides with.
  grep -E 'error|previous|note: candidates' "$log" | sed "s|$root/||" | awk '!seen[$0]++' | head -60 >&2
  echo "unity-check: the library's sources do not compile as one unit: rename one of each pair" \
    "of names above, or give the thing one owner in a header" >&2
  exit 1
fi
echo "unity-check: $(wc -l <"$unit") sources compile as one unit"
