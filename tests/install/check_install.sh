#!/usr/bin/env bash
# ctest install_tree: installs a build into a scratch prefix, as a user does
# with `cmake --install build --prefix ~/.local`, and checks what landed there:
# the binary runs by name, the bench workers sit beside it and find their
# libraries, the man page documents every command, and the bash and zsh
# completions complete commands, flags and flag values from the installed binary.
#   check_install.sh BUILD_DIR MAN(ON|OFF) WORKERS(comma-separated, may be empty)
# Exits 77 (ctest: skipped) when zsh is missing, after every other check passed.
set -euo pipefail
build=$1 man=$2 workers=$3
here=$(cd "$(dirname "$0")" && pwd)

prefix=$(mktemp -d "${TMPDIR:-/tmp}/gpuwatch-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_tree: FAILED: $*" >&2; exit 1; }

cmake_bin=$(command -v cmake)
install_log=$(env -u DESTDIR PATH=/usr/bin:/bin "$cmake_bin" --install "$build" --prefix "$prefix" 2>&1) ||
  fail "cmake --install: $install_log"
# Not on PATH: the install says how to get it there.
grep -qF "$prefix/bin is not on PATH" <<<"$install_log" || fail "no PATH hint in: $install_log"

bin=$prefix/bin
[ -x "$bin/gpuwatch" ] || fail "$bin/gpuwatch is missing"
version=$(PATH=$bin:/usr/bin:/bin gpuwatch --version) || fail "gpuwatch --version exited $?"
[[ $version =~ ^gpuwatch\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "gpuwatch --version printed '$version'"

# Stripped without --strip (GPUWATCH_INSTALL_STRIP, issue 22 item 17): the
# build's debug information stays in the build tree. A RelWithDebInfo
# gpuwatch was 243 MB with it and 5.6 MB without; 20 MB leaves room to grow.
while read -r f; do
  sections=$(readelf -S "$f") || fail "readelf cannot read $f"
  if grep -qE '\.debug_(info|line)' <<<"$sections"; then fail "$f was installed with its debug information"; fi
done < <(echo "$bin/gpuwatch"; find "$prefix" -path '*/gpuwatch/*.so')
size=$(stat -c %s "$bin/gpuwatch")
# A sanitizer build's code is larger by its instrumentation: GCC links ASan's
# runtime as libasan.so, clang links it in and exports its entry points.
libraries=$(ldd "$bin/gpuwatch")
symbols=$(readelf --dyn-syms -W "$bin/gpuwatch")
if ! grep -q libasan <<<"$libraries" && ! grep -q __asan_init <<<"$symbols" &&
   [ "$size" -ge $((20 * 1024 * 1024)) ]; then
  fail "$bin/gpuwatch is $size bytes installed: not stripped?"
fi

IFS=, read -r -a expected_workers <<<"$workers"
for w in "${expected_workers[@]}"; do
  [ -x "$bin/$w" ] || fail "the bench worker $w was built but not installed"
  if ldd "$bin/$w" | grep -q 'not found'; then fail "$w cannot find its libraries: $(ldd "$bin/$w")"; fi
done

page=$prefix/share/man/man1/gpuwatch.1
if [ "$man" = ON ]; then
  [ -f "$page" ] || fail "$page is missing"
  grep -q '^\.SH NAME' "$page" || fail "$page has no NAME section"
  grep -qF "record GPU and host metrics" "$page" || fail "$page has no NAME line"
  # Every subcommand of --help has its own section with its flags.
  commands=$("$bin/gpuwatch" --help | awk '/^Subcommands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && !/^ / { f = 0 }')
  [ -n "$commands" ] || fail "no subcommands in gpuwatch --help"
  for c in $commands; do
    grep -qF ".SS \"gpuwatch $c\"" "$page" || fail "$page has no section for '$c'"
  done
  grep -qF -- '--interval' "$page" || fail "$page lacks record's --interval"
  if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff: $warnings"
    [ -z "$warnings" ] || fail "groff warns about $page: $warnings"
  fi
elif [ -e "$page" ]; then
  fail "$page was installed although the man page is off"
fi

bash_completion=$prefix/share/bash-completion/completions/gpuwatch
zsh_completion=$prefix/share/zsh/site-functions/_gpuwatch
[ -f "$bash_completion" ] || fail "$bash_completion is missing"
[ -f "$zsh_completion" ] || fail "$zsh_completion is missing"

# Completes "$@" (the words, the last one being completed) in a clean bash
# with only the installed completion loaded; prints the candidates.
complete_bash() {
  env -i HOME="$prefix" PATH="$bin:/usr/bin:/bin" bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _gpuwatch gpuwatch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' complete_bash "$bash_completion" "$@"
}
expect_bash() {  # expect_bash WANTED WORDS...: WANTED is among the candidates
  local wanted=$1; shift
  local got
  got=$(complete_bash "$@") || fail "bash completion of '$*' failed"
  grep -qxF -- "$wanted" <<<"$got" || fail "bash completion of '$*' offers no '$wanted': $(echo $got)"
}
expect_bash record gpuwatch rec
expect_bash --interval gpuwatch record --inter
expect_bash --format gpuwatch report --for
expect_bash markdown gpuwatch report --format ""
expect_bash compare gpuwatch bench ""
expect_bash --kind gpuwatch --version plot --ki
# A flag's value is skipped: "5" is not a subcommand, and record's flags follow.
expect_bash --name gpuwatch record --interval 5 --na
# After --, the words are the recorded command's: commands, not gpuwatch flags.
expect_bash true gpuwatch record --name x -- tru
if got=$(complete_bash gpuwatch record -- --inter) && grep -qx -- --interval <<<"$got"; then
  fail "bash completion offers gpuwatch's flags after --"
fi

if ! command -v zsh >/dev/null; then
  echo "install_tree: zsh is not installed (scripts/install-deps.sh --tests): its completion is not checked" >&2
  exit 77
fi
zsh -n "$zsh_completion" || fail "$zsh_completion does not parse"
# zsh completes only in an interactive line editor; the widget is driven
# through a pseudo-terminal by zsh's own zpty module.
complete_zsh() {
  env -i HOME="$prefix" PATH="$bin:/usr/bin:/bin" TERM=dumb \
    zsh -f "$here/complete_zsh.zsh" "$prefix/share/zsh/site-functions" "$1"
}
expect_zsh() {  # expect_zsh WANTED LINE
  local got
  got=$(complete_zsh "$2") || fail "zsh completion of '$2' failed"
  grep -qxF -- "$1" <<<"$got" || fail "zsh completion of '$2' offers no '$1': $(echo $got)"
}
expect_zsh record 'gpuwatch rec'
expect_zsh --interval 'gpuwatch record --inter'
expect_zsh markdown 'gpuwatch report --format '
expect_zsh compare 'gpuwatch bench '
expect_zsh --name 'gpuwatch record --interval 5 --na'
expect_zsh true 'gpuwatch record -- tru'
echo "install_tree: ok ($prefix: bin/gpuwatch, $size bytes, stripped${workers:+, and $workers}, man page $man, bash and zsh completions)"
