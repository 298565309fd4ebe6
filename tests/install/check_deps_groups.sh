#!/usr/bin/env bash
# ctest install_deps_groups: scripts/install-deps.sh without flags (the
# README's first command) installs only what building and running needs, and
# --tests/--bench/--all add the rest (issue 9, item 16).
set -euo pipefail
deps=$(dirname "$0")/../../scripts/install-deps.sh
fail() { echo "install_deps_groups: FAILED: $*" >&2; exit 1; }
has() { grep -qx -- "$2" <<<"$1"; }

build=$("$deps" --print)
# help2man: the man page is always made; python3-venv and Debian's setuptools
# and wheel: the Python client installs into a venv offline (issue 22, item 17).
for p in cmake libcli11-dev libfmt-dev libsqlite3-dev libsimdjson-dev libcairo2-dev libmicrohttpd-dev python3 help2man \
    python3-venv python3-setuptools python3-wheel; do
  has "$build" "$p" || fail "the default group lacks $p"
done
for p in libtorch-dev libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-dev zsh libcpp-httplib-dev \
    slurmctld slurmd slurm-client munge; do
  has "$build" "$p" && fail "the default group installs $p, which only tests or bench workers need"
done
tests=$("$deps" --print --tests)
# slurmctld, slurmd, slurm-client and munge: the one-node Slurm cluster of tests/slurm (issue 27, item 1).
for p in libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-dev libcpp-httplib-dev \
    slurmctld slurmd slurm-client munge; do
  has "$tests" "$p" || fail "--tests lacks $p"
done
has "$tests" libtorch-dev && fail "--tests installs libtorch-dev"
has "$("$deps" --print --bench)" libtorch-dev || fail "--bench lacks libtorch-dev"
all=$("$deps" --print --all)
while read -r p; do has "$all" "$p" || fail "--all lacks $p"; done <<<"$tests"
has "$all" libtorch-dev || fail "--all lacks libtorch-dev"
if "$deps" --bogus >/dev/null 2>&1; then fail "an unknown flag is accepted"; fi
echo "install_deps_groups: ok ($(wc -l <<<"$build") packages by default, $(wc -l <<<"$all") with --all)"
