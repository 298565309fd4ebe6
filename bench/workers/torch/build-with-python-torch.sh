#!/usr/bin/env bash
# Builds gpuwatch-bench-torch against the libtorch inside Python's torch
# package: for a GPU machine that has pip torch (CUDA build), a compiler and
# nvcc, but not gpuwatch's own packages.
#
#   bench/workers/torch/build-with-python-torch.sh [BUILD_DIR [CMAKE_ARGS...]]
#
# BUILD_DIR defaults to build-torch; CMAKE_ARGS go to the configure step.
# CMake first (Torch_DIR from torch.utils.cmake_prefix_path); should torch's
# CMake files fail there, the sources are compiled with g++ directly against
# the package's headers and libraries. Either way, should the one file that
# uses libtorch's CUDA headers (GPU names, peak memory) not compile, the worker
# is built without it and says so: its tests still run on the GPU.
# PYTHON picks the interpreter (default python3); CUDA_HOME the toolkit
# (default: the one nvcc is in, else /usr/local/cuda).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build-torch}
shift || true
python=${PYTHON:-python3}
jobs=$(nproc)
torch_cmake=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
if [ -z "${CUDA_HOME:-}" ]; then
  if command -v nvcc > /dev/null; then CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")"); else CUDA_HOME=/usr/local/cuda; fi
fi

# pip's cuDNN lives in the nvidia.cudnn package, where torch's FindCUDNN does
# not look (and it has no unversioned libcudnn.so): name it.
cudnn_hints=()
cudnn_dir=$("$python" -c 'import nvidia.cudnn as c; print(list(c.__path__)[0])' 2> /dev/null || true)
if [ -n "$cudnn_dir" ] && [ -f "$cudnn_dir/include/cudnn.h" ] && [ -d "$cudnn_dir/lib" ]; then
  cudnn_library=$(find "$cudnn_dir/lib" -name 'libcudnn.so*' | sort | head -n 1)
  cudnn_hints=(-DCUDNN_INCLUDE_PATH="$cudnn_dir/include" -DCUDNN_LIBRARY_PATH="$cudnn_library")
fi

with_cmake() {
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUWATCH_BENCH_TORCH=ON \
    -DTorch_DIR="$torch_cmake/Torch" -DCUDAToolkit_ROOT="$CUDA_HOME" "${cudnn_hints[@]}" "$@" &&
    cmake --build "$build" -j "$jobs"
}

with_gxx() {
  local torch_dir version flags pids source cuda_object cudart=()
  torch_dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  version=$(sed -n 's/^project(gpuwatch VERSION \([0-9.]*\).*/\1/p' "$here/../../../CMakeLists.txt")
  flags=(-std=c++20 -O2 -DNDEBUG "-DGPUWATCH_VERSION=\"$version\"" -Wall -Wextra
         -isystem "$torch_dir/include" -isystem "$torch_dir/include/torch/csrc/api/include"
         -isystem "$CUDA_HOME/include")
  mkdir -p "$build/objects"
  pids=()
  for source in "$here"/*.cpp; do
    case "$(basename "$source")" in cuda_support*.cpp) continue ;; esac
    g++ "${flags[@]}" -c "$source" -o "$build/objects/$(basename "$source" .cpp).o" &
    pids+=($!)
  done
  cuda_object="$build/objects/cuda_support.o"
  if ! g++ "${flags[@]}" -c "$here/cuda_support.cpp" -o "$cuda_object"; then
    echo "WARNING: cuda_support.cpp did not compile: building without GPU facts and peak memory" >&2
    g++ "${flags[@]}" -c "$here/cuda_support_none.cpp" -o "$cuda_object"
  fi
  for pid in "${pids[@]}"; do wait "$pid" || return 1; done
  if [ -e "$CUDA_HOME/lib64/libcudart.so" ]; then cudart=(-L"$CUDA_HOME/lib64" -lcudart); fi
  # --no-as-needed keeps libtorch_cuda, whose start-up code registers the CUDA
  # backend, even where none of its symbols is referenced.
  g++ -o "$build/gpuwatch-bench-torch" "$build"/objects/*.o -L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" \
    -Wl,--no-as-needed -ltorch -ltorch_cuda -ltorch_cpu -lc10_cuda -lc10 -Wl,--as-needed "${cudart[@]}" -pthread
}

if with_cmake "$@"; then
  :
elif [ -f "$build/CMakeCache.txt" ] && with_cmake -DGPUWATCH_BENCH_TORCH_CUDA_FACTS=OFF "$@"; then
  echo "WARNING: built without GPU facts and peak memory (cuda_support.cpp did not compile)" >&2
else
  echo "CMake could not build against $torch_cmake; compiling with g++ directly" >&2
  with_gxx
fi
echo "built $build/gpuwatch-bench-torch"
