#!/usr/bin/env bash
# Runs on the GPU machine: gpuwatch bench (issue 5) with both workers, and the
# side-by-side references: torch.matmul / Tensor.copy_ for the CUDA worker,
# Python PyTorch eager (bench/reference/) for the model suite.
# Expects .device/gpuwatch and .device/gpuwatch-bench-cuda built elsewhere; the
# libtorch worker is built here against the pip torch's libtorch.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }
step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
WORK="$OUT/work"; mkdir -p "$WORK"
WORKERS="$PWD/.device/workers"; mkdir -p "$WORKERS"
export GPUWATCH_BENCH_WORKER_DIR="$WORKERS"

# The libtorch worker builds on the CPUs while the CUDA worker has the GPU.
( bench/workers/torch/build-with-python-torch.sh build-torch > "$WORK/torch-build.log" 2>&1; echo "torch build rc=$?" >> "$WORK/torch-build.log" ) &
BUILD=$!

step "CUDA worker: find cuBLASLt"
for d in $(python3 -c 'import nvidia, os; [print(os.path.join(p, "cublas", "lib")) for p in nvidia.__path__]' 2>/dev/null) /usr/local/cuda/lib64 /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu; do
  if ls "$d"/libcublasLt.so.13* > /dev/null 2>&1; then export LD_LIBRARY_PATH="$d:$LD_LIBRARY_PATH"; echo "libcublasLt.so.13 in $d"; break; fi
done
if ldd .device/gpuwatch-bench-cuda | grep -q "not found"; then
  echo "the carried CUDA worker cannot load here; compiling it with this machine's nvcc"
  ldd .device/gpuwatch-bench-cuda | grep "not found"
  mkdir -p "$WORK/cuda-build"
  nvcc -O3 -std=c++20 -arch=native -DFMT_HEADER_ONLY -I.device/include -Isrc -Ibench/workers/cuda \
    bench/workers/cuda/*.cu bench/workers/cuda/*.cpp src/base/json_writer.cpp -lcublasLt \
    -o .device/gpuwatch-bench-cuda > "$WORK/cuda-build.log" 2>&1; echo "nvcc rc=$?"; tail -5 "$WORK/cuda-build.log"
fi
ln -sf "$PWD/.device/gpuwatch-bench-cuda" "$WORKERS/gpuwatch-bench-cuda"

step "torch references for the micro suite: torch.matmul bf16 8192, Tensor.copy_ 1 GiB"
python3 bench/reference/torch_micro_reference.py | tee "$WORK/torch_micro.jsonl"

step "gpuwatch bench --suite micro"
"$GW" bench --suite micro -o "$WORK/micro.json" --log-file "$WORK/micro.log"
echo "exit status: $?"

step "wait for the libtorch worker build"
wait $BUILD; tail -3 "$WORK/torch-build.log"
ln -sf "$PWD/build-torch/gpuwatch-bench-torch" "$WORKERS/gpuwatch-bench-torch"

MODELS=(--num-epochs 1 --num-batches 60 --num-workers 4)
step "gpuwatch bench --suite models ${MODELS[*]}"
"$GW" bench --suite models "${MODELS[@]}" -o "$WORK/models.json" --log-file "$WORK/models.log"
echo "exit status: $?"

step "Python PyTorch eager reference, same settings"
python3 bench/reference/gpu_loadtest_reference.py "${MODELS[@]}" -o "$WORK/reference.json" 2> "$WORK/reference.err" | tail -3
echo "exit status: $?"; tail -3 "$WORK/reference.err"
step "worker vs reference"
python3 bench/reference/compare_with_worker.py "$WORK/models.json" "$WORK/reference.json" 2>&1 ||
  "$GW" bench compare "$WORK/reference.json" "$WORK/models.json"

step "bench compare micro models (two result files side by side)"
"$GW" bench compare "$WORK/micro.json" "$WORK/models.json" | head -5
tar -czf "$OUT/issue5.tar.gz" -C "$WORK" . && rm -rf "$WORK"
