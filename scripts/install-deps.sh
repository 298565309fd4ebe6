#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that gpuwatch needs to build and test.
# Shared by the README and .ci/run so the two can never drift apart.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libcli11-dev libfmt-dev libsqlite3-dev
  libsimdjson-dev            # reading JSON (import)
  libpcre2-dev               # --annotate-regex (PCRE2)
  libcairo2-dev fonts-dejavu-core  # plots (PNG, SVG, PDF) and their text
  libgtest-dev libgmock-dev libbenchmark-dev
  clang                      # fuzz targets (libFuzzer)
  libtorch-dev               # gpuwatch bench's libtorch worker (CPU build; ~120 MB download, ~500 MB installed)
  python3
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
# libFuzzer's runtime is its own package on Debian 12 and Ubuntu 24.04; older
# releases ship it inside clang's packages and have no such name.
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends libclang-rt-dev ||
  echo "install-deps: no libclang-rt-dev here; libFuzzer comes with clang on this release"
