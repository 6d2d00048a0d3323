// Runs the nv12_to_rgb kernel's source on the CPU, one "thread" per output pixel, so that its arithmetic
// (resampling, crop window, colour, layout) can be checked against the CPU path without a GPU
// (Nv12KernelOnCpuTest). Build: g++ -O2 -I stoker-gpu/src/main/cuda nv12_host_harness.cpp
// Usage: harness Y_FILE UV_FILE WIDTH HEIGHT CROP_X CROP_Y CROP_W CROP_H OUT_W OUT_H COLOUR PLANAR OUT_FILE
// (UV_FILE: U and V interleaved, NV12's second plane; PLANAR 1 writes CHW, else HWC.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Dim3 { int x, y, z; };
static Dim3 blockIdx, threadIdx, blockDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
using std::max;
using std::min;
#include "nv12_to_rgb.cu"

static std::vector<unsigned char> read(const char* path) {
    std::vector<unsigned char> bytes;
    FILE* f = fopen(path, "rb");
    if (f == nullptr) {
        perror(path);
        exit(2);
    }
    int c;
    while ((c = fgetc(f)) != EOF) {
        bytes.push_back((unsigned char) c);
    }
    fclose(f);
    return bytes;
}

int main(int argc, char** argv) {
    if (argc != 14) {
        fprintf(stderr, "usage: %s Y UV W H CROP_X CROP_Y CROP_W CROP_H OUT_W OUT_H COLOUR PLANAR OUT\n", argv[0]);
        return 2;
    }
    std::vector<unsigned char> y = read(argv[1]);
    std::vector<unsigned char> uv = read(argv[2]);
    int width = atoi(argv[3]);
    int height = atoi(argv[4]);
    float cropX = atof(argv[5]), cropY = atof(argv[6]), cropW = atof(argv[7]), cropH = atof(argv[8]);
    int outW = atoi(argv[9]);
    int outH = atoi(argv[10]);
    int colour = atoi(argv[11]);
    bool planar = atoi(argv[12]) != 0;
    std::vector<unsigned char> out((size_t) outW * outH * 3);
    long long channelStride = planar ? (long long) outW * outH : 1;
    long long rowStride = planar ? outW : 3LL * outW;
    int pixelStride = planar ? 1 : 3;
    blockDim = {1, 1, 1};
    threadIdx = {0, 0, 0};
    for (int dy = 0; dy < outH; dy++) {
        for (int dx = 0; dx < outW; dx++) {
            blockIdx = {dx, dy, 0};
            nv12_to_rgb(y.data(), width, uv.data(), 2 * ((width + 1) / 2), width, height, cropX, cropY, cropW, cropH,
                        out.data(), outW, outH, channelStride, rowStride, pixelStride, colour);
        }
    }
    FILE* f = fopen(argv[13], "wb");
    fwrite(out.data(), 1, out.size(), f);
    fclose(f);
    return 0;
}
