#!/bin/sh
# Regenerates the PTX resource from nv12_to_rgb.cu (needs the CUDA toolkit's nvcc; the build does not).
# The PTX is lowered to ISA 7.0 / sm_75 so that drivers from CUDA 11.0 on can JIT it, then checked with ptxas.
set -e
cd "$(dirname "$0")"
out=../resources/dev/stoker/gpu/nv12_to_rgb.ptx
nvcc -ptx -arch=compute_75 -O3 -o "$out" nv12_to_rgb.cu
sed -i -e 's/^\.version .*/.version 7.0/' "$out"
ptxas -arch=sm_75 -o /dev/null "$out"
ptxas -arch=sm_90 -o /dev/null "$out"
echo "wrote $out"
