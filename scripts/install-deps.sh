#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages gpuwatch needs, in groups, so that a user
# who only wants to build and run it does not download the test tools or
# libtorch. Shared by the README, scripts/test.sh and .ci/run so they never drift.
#   scripts/install-deps.sh               build and run gpuwatch (the README's first command)
#   scripts/install-deps.sh --tests       also what scripts/test.sh needs (gtest, clang, ...)
#   scripts/install-deps.sh --bench       also the bench workers' toolkits (libtorch-dev)
#   scripts/install-deps.sh --all         all of the above (.ci/run)
#   scripts/install-deps.sh --if-missing --all
#                                         only run apt-get when a package of those groups is missing
#   scripts/install-deps.sh --print --tests
#                                         list the packages instead of installing them
# Uses apt-get, through sudo when not root.
set -euo pipefail

# Building and running gpuwatch.
build_packages=(
  build-essential cmake pkg-config
  libcli11-dev libfmt-dev libsqlite3-dev
  libsimdjson-dev                  # reading JSON (import)
  libcairo2-dev fonts-dejavu-core  # plots (PNG, SVG, PDF) and their text
  libpcre2-dev                     # --annotate-regex
  libncurses-dev                   # top
  libmicrohttpd-dev                # exporter and serve (the HTTP server, event-driven)
  zlib1g-dev                       # serve and exporter: gzip answers for clients that accept them
  libtomlplusplus-dev              # matrix --grid FILE.toml (toml++, used header-only)
  help2man                         # the man page, made from --help at build time
  python3 python3-venv             # the Python client (python/), installed into a venv
  python3-setuptools python3-wheel # ... offline: docs/python.md#install
)
# scripts/test.sh: unit, end-to-end and fuzz tests, the micro-benchmarks.
tests_packages=(
  libgtest-dev libgmock-dev
  ninja-build                # scripts/test.sh's builds: its .ninja_log says what each compile cost
  libcpp-httplib-dev         # an HTTP client in the unit tests of the HTTP server
  libbenchmark-dev           # bench/bench_store
  clang                      # fuzz targets (libFuzzer)
  zsh                        # the install test runs the zsh completion
  tmux                       # terminal tests (tests/e2e/test_status_line_tty.py, test_top.py)
  prometheus                 # promtool checks the exporter's output and the server scrapes it
                             # (tests/e2e/test_exporter.py); Debian ships
                             # it with the server, which systemd starts: `systemctl disable --now prometheus`;
                             # promtool also tests contrib/prometheus/gpuwatch-rules.yml (prometheus.rules)
  python3-yaml               # tests/prometheus/check_rules.py reads the rules and their tests
  slurmctld slurmd slurm-client munge
                             # a one-node Slurm cluster the test starts in a temporary folder for
                             # `matrix --slurm` (tests/slurm, slurm.cluster); Debian's systemd
                             # units for them are not needed: `systemctl disable --now slurmctld slurmd munge`
)
# Workers of `gpuwatch bench` (docs/bench-workers.md); the CUDA worker needs
# NVIDIA's CUDA toolkit, which is not a Debian package this script installs.
bench_packages=(
  libtorch-dev               # the libtorch worker (CPU build; ~120 MB download, ~500 MB installed)
)
# libFuzzer's runtime is its own package on Debian 12 and Ubuntu 24.04; older
# releases ship it inside clang's packages and have no such name.
# Installed where the release has them; tests that need one are skipped without it.
tests_optional_packages=(
  libclang-rt-dev            # libFuzzer's runtime, apart from clang on newer releases
  chromium                   # headless browser for serve's pages (tests/e2e/test_serve.py);
                             # Debian's package (Ubuntu has only a snap, which the tests do not use)
)

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

want_tests=0 want_bench=0 if_missing=0 print=0
for arg in "$@"; do
  case $arg in
    --tests) want_tests=1 ;;
    --bench) want_bench=1 ;;
    --all) want_tests=1 want_bench=1 ;;
    --if-missing) if_missing=1 ;;
    --print) print=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

packages=("${build_packages[@]}")
optional=()
if [ "$want_tests" = 1 ]; then
  packages+=("${tests_packages[@]}")
  optional+=("${tests_optional_packages[@]}")
fi
if [ "$want_bench" = 1 ]; then packages+=("${bench_packages[@]}"); fi

if [ "$print" = 1 ]; then
  printf '%s\n' "${packages[@]}" "${optional[@]}"
  exit 0
fi
if [ "$if_missing" = 1 ] && dpkg -s "${packages[@]}" >/dev/null 2>&1; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
for p in "${optional[@]}"; do
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$p" ||
    echo "install-deps: no $p here; the tests that need it are skipped"
done
