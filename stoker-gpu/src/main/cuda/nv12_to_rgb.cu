// Source of src/main/resources/dev/stoker/gpu/nv12_to_rgb.ptx (see make-ptx.sh): decoded NV12 frames
// (NVDEC's output surface) to uint8 RGB, cropped and resized, written straight into a slot of a device
// clip or batch buffer in either layout.
//
// Destination byte of channel c at (x, y): dst + c * channelStride + y * rowStride + x * pixelStride
//   NTHWC frame: channelStride 1, pixelStride 3, rowStride 3 * W
//   NCTHW frame: channelStride T * H * W, pixelStride 1, rowStride W
// Colour (bits of `colour`): bit 0 set for BT.709, else BT.601; bit 1 set for full range (JPEG), else
// limited range: the frame's own matrix and range, as the CPU path's swscale set-up reads them.
//
// Resampling follows swscale's SWS_BILINEAR, which the CPU path uses: a tent filter around each output
// pixel's centre, one source pixel wide when enlarging (plain bilinear interpolation) and as wide as the
// scale factor when shrinking (so a 1080p frame shrunk to 112 pixels is averaged, not point-sampled), with
// the crop window's edge pixels repeated beyond it.

// A tent-filtered sample of one plane around (cx, cy), radii (rx, ry), clamped to [x0, x1] x [y0, y1].
// Samples are `step` bytes apart in a row, starting `offset` bytes in (U and V interleave in NV12).
__device__ __forceinline__ float tent(const unsigned char* __restrict__ plane, int pitch, int step, int offset, float cx, float cy,
                      float rx, float ry, int x0, int x1, int y0, int y1)
{
    int xa = (int) ceilf(cx - rx);
    int xb = (int) floorf(cx + rx);
    int ya = (int) ceilf(cy - ry);
    int yb = (int) floorf(cy + ry);
    float sum = 0.0f;
    float weights = 0.0f;
    for (int y = ya; y <= yb; y++) {
        float wy = 1.0f - fabsf(y - cy) / ry;
        if (wy <= 0.0f) {
            continue;
        }
        const unsigned char* row = plane + min(max(y, y0), y1) * pitch + offset;
        for (int x = xa; x <= xb; x++) {
            float wx = 1.0f - fabsf(x - cx) / rx;
            if (wx <= 0.0f) {
                continue;
            }
            float w = wx * wy;
            sum += w * row[min(max(x, x0), x1) * step];
            weights += w;
        }
    }
    // The sample nearest the centre always weighs more than 0, so weights > 0.
    return sum / weights;
}

// What the frames of one draw share: where and how they are written, the source size, crop window and colour. It is
// the head of ClipJob (below), so the clip kernel passes its job's on; nv12_to_rgb fills one from its arguments.
struct Drawing {
    unsigned char* dst;          //  0: the first byte of slot 0 (the frame, or the clip's first frame)
    long long channelStride;     //  8
    long long rowStride;         // 16
    long long slotStride;        // 24: bytes from one slot (frame) of the clip to the next
    int pixelStride;             // 32
    int dstWidth;                // 36
    int dstHeight;               // 40
    int srcWidth;                // 44
    int srcHeight;               // 48
    float cropX;                 // 52
    float cropY;                 // 56
    float cropWidth;             // 60
    float cropHeight;            // 64
    int colour;                  // 68
};                               // 72 bytes

// Draws output pixel (dx, dy) of the frame with NV12 planes y and uv into its slot, whose first byte is `frame`
// (drawing.dst + slot * drawing.slotStride): the body both entries share. `frame` is a parameter of its own, not worked
// out here, for its __restrict__: it is what lets the compiler read the planes through the read-only cache.
__device__ __forceinline__ void draw_pixel(int dx, int dy, const unsigned char* __restrict__ y, int yPitch,
                                           const unsigned char* __restrict__ uv, int uvPitch, const Drawing drawing,
                                           unsigned char* __restrict__ frame)
{
    // The crop window in whole pixels, within the frame.
    int lx0 = max(0, (int) drawing.cropX);
    int ly0 = max(0, (int) drawing.cropY);
    int lx1 = min(drawing.srcWidth - 1, (int) (drawing.cropX + drawing.cropWidth) - 1);
    int ly1 = min(drawing.srcHeight - 1, (int) (drawing.cropY + drawing.cropHeight) - 1);

    // Pixel centres: destination (dx + 0.5) maps into the crop window of the source.
    float scaleX = drawing.cropWidth / drawing.dstWidth;
    float scaleY = drawing.cropHeight / drawing.dstHeight;
    float sx = drawing.cropX + (dx + 0.5f) * scaleX - 0.5f;
    float sy = drawing.cropY + (dy + 0.5f) * scaleY - 0.5f;
    float l = tent(y, yPitch, 1, 0, sx, sy, fmaxf(1.0f, scaleX), fmaxf(1.0f, scaleY), lx0, lx1, ly0, ly1);

    // Chroma at half resolution in both directions, U and V interleaved.
    float cx = drawing.cropX * 0.5f + (dx + 0.5f) * scaleX * 0.5f - 0.5f;
    float cy = drawing.cropY * 0.5f + (dy + 0.5f) * scaleY * 0.5f - 0.5f;
    float crx = fmaxf(1.0f, scaleX * 0.5f);
    float cry = fmaxf(1.0f, scaleY * 0.5f);
    int cx0 = lx0 / 2;
    int cy0 = ly0 / 2;
    int cx1 = max(cx0, min((drawing.srcWidth + 1) / 2 - 1, lx1 / 2));
    int cy1 = max(cy0, min((drawing.srcHeight + 1) / 2 - 1, ly1 / 2));
    float u = tent(uv, uvPitch, 2, 0, cx, cy, crx, cry, cx0, cx1, cy0, cy1);
    float v = tent(uv, uvPitch, 2, 1, cx, cy, crx, cry, cx0, cx1, cy0, cy1);

    bool bt709 = (drawing.colour & 1) != 0;
    bool fullRange = (drawing.colour & 2) != 0;
    // Limited range: luma spans 16..235 and chroma 16..240, so both are stretched to 0..255 first.
    float c = fullRange ? l : 1.164383f * (l - 16.0f);
    float k = fullRange ? 1.0f : 1.138393f;
    float d = (u - 128.0f) * k;
    float e = (v - 128.0f) * k;
    float r, g, b;
    if (bt709) {
        r = c + 1.5748f * e;
        g = c - 0.187324f * d - 0.468124f * e;
        b = c + 1.8556f * d;
    } else {
        r = c + 1.402f * e;
        g = c - 0.344136f * d - 0.714136f * e;
        b = c + 1.772f * d;
    }
    unsigned char* out = frame + dy * drawing.rowStride + (long long) dx * drawing.pixelStride;
    out[0] = (unsigned char) fminf(fmaxf(r + 0.5f, 0.0f), 255.0f);
    out[drawing.channelStride] = (unsigned char) fminf(fmaxf(g + 0.5f, 0.0f), 255.0f);
    out[2 * drawing.channelStride] = (unsigned char) fminf(fmaxf(b + 0.5f, 0.0f), 255.0f);
}

extern "C" __global__ void nv12_to_rgb(const unsigned char* __restrict__ y, int yPitch,
                                       const unsigned char* __restrict__ uv, int uvPitch,
                                       int srcWidth, int srcHeight,
                                       float cropX, float cropY, float cropWidth, float cropHeight,
                                       unsigned char* __restrict__ dst, int dstWidth, int dstHeight,
                                       long long channelStride, long long rowStride, int pixelStride,
                                       int colour)
{
    int dx = blockIdx.x * blockDim.x + threadIdx.x;
    int dy = blockIdx.y * blockDim.y + threadIdx.y;
    if (dx >= dstWidth || dy >= dstHeight) {
        return;
    }
    const Drawing drawing = {dst, channelStride, rowStride, 0, pixelStride, dstWidth, dstHeight, srcWidth, srcHeight,
                             cropX, cropY, cropWidth, cropHeight, colour};
    draw_pixel(dx, dy, y, yPitch, uv, uvPitch, drawing, dst);
}

// A clip's frames in one launch (nv12_to_rgb_clip): the job is passed by value, so no argument block is copied to
// the device first. Its layout is ClipKernelJob's (Java); ClipKernelJobTest checks the size against this PTX.
#define CLIP_MAX_FRAMES 64

// One frame of a clip: its NV12 surface (a mapped NVDEC output surface) and the slot of the clip it is drawn into.
struct ClipFrame {
    const unsigned char* y;      //  0
    const unsigned char* uv;     //  8
    int yPitch;                  // 16
    int uvPitch;                 // 20
    int slot;                    // 24
    int reserved;                // 28
};                               // 32 bytes

struct ClipJob {
    Drawing drawing;             //  0: dst is the clip's first byte (slot 0)
    int frames;                  // 72: frames used in `frame`
    int reserved;                // 76
    ClipFrame frame[CLIP_MAX_FRAMES];   // 80
};                               // 80 + 64 * 32 = 2128 bytes

// Grid: x and y cover the output frame as nv12_to_rgb's do, z is the frame of the job.
extern "C" __global__ void nv12_to_rgb_clip(const ClipJob job)
{
    int f = blockIdx.z;
    int dx = blockIdx.x * blockDim.x + threadIdx.x;
    int dy = blockIdx.y * blockDim.y + threadIdx.y;
    if (f >= job.frames || dx >= job.drawing.dstWidth || dy >= job.drawing.dstHeight) {
        return;
    }
    const ClipFrame& frame = job.frame[f];
    draw_pixel(dx, dy, frame.y, frame.yPitch, frame.uv, frame.uvPitch, job.drawing,
               job.drawing.dst + frame.slot * job.drawing.slotStride);
}
