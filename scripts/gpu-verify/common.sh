# Sourced by the GPU-machine scripts here: run from the repository root, with
# the gpuwatch binary built elsewhere in .device/ (and in .device/lib/ the
# shared libraries that machine may lack); results go to $OUT.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export LD_LIBRARY_PATH="$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
GW="$PWD/.device/gpuwatch"
OUT=${OUT:-/tmp/gpuwatch-verify}
mkdir -p "$OUT"
