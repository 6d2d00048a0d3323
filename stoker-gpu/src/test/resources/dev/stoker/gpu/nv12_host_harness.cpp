// Runs the nv12_to_rgb kernel's source on the CPU, one "thread" per output pixel, so that its arithmetic
// (resampling, crop window, colour, layout) can be checked against the CPU path without a GPU
// (Nv12KernelOnCpuTest). Build: g++ -O2 -I stoker-gpu/src/main/cuda nv12_host_harness.cpp
// Usage: harness Y_FILE UV_FILE WIDTH HEIGHT CROP_X CROP_Y CROP_W CROP_H OUT_W OUT_H COLOUR PLANAR OUT_FILE [clip]
// (UV_FILE: U and V interleaved, NV12's second plane; PLANAR 1 writes CHW, else HWC.) With "clip", the frame is drawn
// by nv12_to_rgb_clip instead, twice in one job, into slots 1 and 0 of a two-frame clip (TCHW... as the layout says).
//        harness job JOB_FILE: reads a ClipJob as Java's ClipKernelJob wrote it and prints its fields.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

static int printJob(const char* path) {
    std::vector<unsigned char> bytes = read(path);
    if (bytes.size() != sizeof(ClipJob)) {
        fprintf(stderr, "job file: %zu bytes (expected: sizeof(ClipJob) = %zu)\n", bytes.size(), sizeof(ClipJob));
        return 3;
    }
    ClipJob job;
    memcpy(&job, bytes.data(), sizeof job);
    const Drawing& d = job.drawing;
    printf("dst=%llu channelStride=%lld rowStride=%lld slotStride=%lld pixelStride=%d dst=%dx%d src=%dx%d "
           "crop=%g,%g,%g,%g colour=%d frames=%d\n", (unsigned long long) d.dst, d.channelStride, d.rowStride,
           d.slotStride, d.pixelStride, d.dstWidth, d.dstHeight, d.srcWidth, d.srcHeight, d.cropX,
           d.cropY, d.cropWidth, d.cropHeight, d.colour, job.frames);
    for (int i = 0; i < job.frames; i++) {
        printf("frame %d: y=%llu uv=%llu yPitch=%d uvPitch=%d slot=%d\n", i, (unsigned long long) job.frame[i].y,
               (unsigned long long) job.frame[i].uv, job.frame[i].yPitch, job.frame[i].uvPitch, job.frame[i].slot);
    }
    return 0;
}

// The frame drawn twice by one nv12_to_rgb_clip job: slot 1 first, then slot 0, of a two-frame clip.
static int drawClip(std::vector<unsigned char>& y, std::vector<unsigned char>& uv, int width, int height, float cropX,
                    float cropY, float cropW, float cropH, int outW, int outH, int colour, bool planar, bool mirror,
                    const char* path) {
    std::vector<unsigned char> out((size_t) 2 * outW * outH * 3);
    ClipJob job;
    memset(&job, 0, sizeof job);
    Drawing& d = job.drawing;
    d.dst = out.data();
    d.channelStride = planar ? 2LL * outW * outH : 1;
    d.rowStride = planar ? outW : 3LL * outW;
    d.slotStride = planar ? (long long) outW * outH : 3LL * outW * outH;
    d.pixelStride = planar ? 1 : 3;
    if (mirror) {   // as Nv12Kernel.Destination.mirrored() sets it: the last column first, the stride negated
        d.dst += (long long) (outW - 1) * d.pixelStride;
        d.pixelStride = -d.pixelStride;
    }
    d.dstWidth = outW;
    d.dstHeight = outH;
    d.srcWidth = width;
    d.srcHeight = height;
    d.cropX = cropX;
    d.cropY = cropY;
    d.cropWidth = cropW;
    d.cropHeight = cropH;
    d.colour = colour;
    job.frames = 2;
    for (int f = 0; f < 2; f++) {
        job.frame[f].y = y.data();
        job.frame[f].uv = uv.data();
        job.frame[f].yPitch = width;
        job.frame[f].uvPitch = 2 * ((width + 1) / 2);
        job.frame[f].slot = 1 - f;
    }
    blockDim = {1, 1, 1};
    threadIdx = {0, 0, 0};
    for (int f = 0; f < 2; f++) {
        for (int dy = 0; dy < outH; dy++) {
            for (int dx = 0; dx < outW; dx++) {
                blockIdx = {dx, dy, f};
                nv12_to_rgb_clip(job);
            }
        }
    }
    FILE* file = fopen(path, "wb");
    fwrite(out.data(), 1, out.size(), file);
    fclose(file);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && strcmp(argv[1], "job") == 0) {
        return printJob(argv[2]);
    }
    bool clip = false;
    bool mirror = false;
    for (int i = 14; i < argc; i++) {
        clip |= strcmp(argv[i], "clip") == 0;
        mirror |= strcmp(argv[i], "mirror") == 0;
    }
    if (argc < 14 || argc - 14 != (clip ? 1 : 0) + (mirror ? 1 : 0)) {
        fprintf(stderr, "usage: %s Y UV W H CROP_X CROP_Y CROP_W CROP_H OUT_W OUT_H COLOUR PLANAR OUT [clip] [mirror]\n",
                argv[0]);
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
    if (clip) {
        return drawClip(y, uv, width, height, cropX, cropY, cropW, cropH, outW, outH, colour, planar, mirror, argv[13]);
    }
    std::vector<unsigned char> out((size_t) outW * outH * 3);
    long long channelStride = planar ? (long long) outW * outH : 1;
    long long rowStride = planar ? outW : 3LL * outW;
    int pixelStride = planar ? 1 : 3;
    unsigned char* dst = out.data();
    if (mirror) {
        dst += (long long) (outW - 1) * pixelStride;
        pixelStride = -pixelStride;
    }
    blockDim = {1, 1, 1};
    threadIdx = {0, 0, 0};
    for (int dy = 0; dy < outH; dy++) {
        for (int dx = 0; dx < outW; dx++) {
            blockIdx = {dx, dy, 0};
            nv12_to_rgb(y.data(), width, uv.data(), 2 * ((width + 1) / 2), width, height, cropX, cropY, cropW, cropH,
                        dst, outW, outH, channelStride, rowStride, pixelStride, colour);
        }
    }
    FILE* f = fopen(argv[13], "wb");
    fwrite(out.data(), 1, out.size(), f);
    fclose(f);
    return 0;
}
