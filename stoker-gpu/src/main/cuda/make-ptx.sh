#!/bin/sh
# Regenerates the PTX resource from nv12_to_rgb.cu (the build does not: the PTX is checked in).
# With the CUDA toolkit's nvcc, that compiles it. Without it, the device half of nvcc's own pipeline does: the host
# compiler preprocesses for the device (__CUDA_ARCH__) with the toolkit's headers, and NVVM's cicc (the pip wheels
# nvidia-cuda-nvcc/nvidia-nvvm carry it) compiles that to PTX, as nvcc itself would (CUDA=/usr/local/cuda-13.0).
# The PTX is lowered to ISA 7.0 / sm_75 so that drivers from CUDA 11.0 on can JIT it, then checked with ptxas where
# there is one.
set -e
cd "$(dirname "$0")"
out=../resources/dev/stoker/gpu/nv12_to_rgb.ptx
cuda="${CUDA:-/usr/local/cuda-13.0}"
if command -v nvcc >/dev/null 2>&1 && nvcc --version >/dev/null 2>&1; then
  nvcc -ptx -arch=compute_75 -O3 -o "$out" nv12_to_rgb.cu
else
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  g++ -E -x c++ -m64 -D__CUDA_ARCH__=750 -D__CUDA_ARCH_LIST__=750 -D__CUDACC__ -D__NVCC__ \
      -D__CUDACC_VER_MAJOR__=13 -D__CUDACC_VER_MINOR__=0 -D__CUDACC_VER_BUILD__=88 \
      -D__CUDA_API_VER_MAJOR__=13 -D__CUDA_API_VER_MINOR__=0 -D__NVCC_DIAG_PRAGMA_SUPPORT__=1 \
      -I"$cuda/include" -I"$cuda/targets/x86_64-linux/include" -include cuda_runtime.h nv12_to_rgb.cu -o "$tmp/k.ii"
  "$cuda/nvvm/bin/cicc" --c++17 --gnu_version=120200 --orig_src_file_name nv12_to_rgb.cu --allow_managed \
      -arch compute_75 -m64 --no-version-ident -ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 -O3 "$tmp/k.ii" -o "$out"
fi
sed -i -e 's/^\.version .*/.version 7.0/' "$out"
if command -v ptxas >/dev/null 2>&1 && ptxas --version >/dev/null 2>&1; then
  ptxas -arch=sm_75 -o /dev/null "$out"
  ptxas -arch=sm_90 -o /dev/null "$out"
else
  echo "no ptxas here: the PTX is not assembled (the driver JIT-compiles it on the GPU machine)"
fi
echo "wrote $out"
