#!/usr/bin/env bash
# Compiles the runner's CUDA/NCCL code (everything under `#ifdef SHARDSCOPE_CUDA`) with -fsyntax-only against the
# installed LibTorch headers and the CUDA toolkit's CUDA and NCCL headers. A machine without a GPU and without a
# CUDA LibTorch (CI, this project's build machines) thereby still checks that code against c10d's NCCL and
# c10::cuda API; it does not replace a build against a CUDA LibTorch and a run on GPUs (docs/runner.md).
#   scripts/check_cuda_syntax.sh [CXX]     env: CUDA_HOME (/usr/local/cuda), TORCH_INCLUDE (/usr/include)
# Exit 0: compiles; 1: a compile error (printed); 77: the CUDA or LibTorch headers are not here (ctest: skipped).
set -uo pipefail
cd "$(dirname "$0")/.."
CXX=${1:-c++}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
TORCH_INCLUDE=${TORCH_INCLUDE:-/usr/include}
for h in "$CUDA_HOME/include/cuda_runtime_api.h" "$CUDA_HOME/include/nccl.h" \
         "$TORCH_INCLUDE/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp" "$TORCH_INCLUDE/c10/cuda/CUDAGuard.h"; do
  if [[ ! -f $h ]]; then
    echo "check_cuda_syntax: skipped: $h is not here"
    exit 77
  fi
done
# A CPU LibTorch's headers lack the header CMake generates for CUDA builds; a CUDA build defines only this in it.
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
mkdir -p "$shim/c10/cuda/impl"
[[ -f $TORCH_INCLUDE/c10/cuda/impl/cuda_cmake_macros.h ]] ||
  echo '#define C10_CUDA_BUILD_SHARED_LIBS' > "$shim/c10/cuda/impl/cuda_cmake_macros.h"
status=0
for src in $(grep -l 'SHARDSCOPE_CUDA' runner/*.cpp); do
  if ! "$CXX" -std=c++20 -fsyntax-only -Wall -Wextra -Wno-unused-parameter -D_GLIBCXX_USE_CXX11_ABI=1 \
      -DSHARDSCOPE_CUDA=1 -DUSE_C10D_NCCL -DUSE_CUDA -DUSE_C10D_GLOO -DUSE_DISTRIBUTED \
      -DSHARDSCOPE_SOURCE_DIR=\"$PWD\" -DSHARDSCOPE_VERSION=\"check\" -I. -isystem "$shim" \
      -isystem "$TORCH_INCLUDE/torch/csrc/api/include" -isystem "$CUDA_HOME/include" "$src"; then
    echo "check_cuda_syntax: $src does not compile with SHARDSCOPE_CUDA"
    status=1
  else
    echo "check_cuda_syntax: $src compiles with SHARDSCOPE_CUDA"
  fi
done
exit $status
