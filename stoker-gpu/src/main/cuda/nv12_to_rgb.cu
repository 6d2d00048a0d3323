// Source of src/main/resources/dev/stoker/gpu/nv12_to_rgb.ptx (see make-ptx.sh): decoded NV12 frames
// (NVDEC's output surface) to uint8 RGB, cropped and resized bilinearly, written straight into a slot
// of a device batch in either layout.
//
// Destination byte of channel c at (x, y): dst + c * channelStride + y * rowStride + x * pixelStride
//   NTHWC frame: channelStride 1, pixelStride 3, rowStride 3 * W
//   NCTHW frame: channelStride T * H * W, pixelStride 1, rowStride W
// Colour: BT.601 (bt709 = 0) or BT.709 (bt709 = 1), limited range, as swscale does by default.

extern "C" __global__ void nv12_to_rgb(const unsigned char* __restrict__ y, int yPitch,
                                       const unsigned char* __restrict__ uv, int uvPitch,
                                       int srcWidth, int srcHeight,
                                       float cropX, float cropY, float cropWidth, float cropHeight,
                                       unsigned char* __restrict__ dst, int dstWidth, int dstHeight,
                                       long long channelStride, long long rowStride, int pixelStride,
                                       int bt709)
{
    int dx = blockIdx.x * blockDim.x + threadIdx.x;
    int dy = blockIdx.y * blockDim.y + threadIdx.y;
    if (dx >= dstWidth || dy >= dstHeight) {
        return;
    }
    // Pixel centres: destination (dx + 0.5) maps into the crop window of the source.
    float sx = cropX + (dx + 0.5f) * (cropWidth / dstWidth) - 0.5f;
    float sy = cropY + (dy + 0.5f) * (cropHeight / dstHeight) - 0.5f;
    sx = fminf(fmaxf(sx, 0.0f), srcWidth - 1.0f);
    sy = fminf(fmaxf(sy, 0.0f), srcHeight - 1.0f);
    int x0 = (int) sx;
    int y0 = (int) sy;
    int x1 = min(x0 + 1, srcWidth - 1);
    int y1 = min(y0 + 1, srcHeight - 1);
    float fx = sx - x0;
    float fy = sy - y0;
    float l = (1.0f - fy) * ((1.0f - fx) * y[y0 * yPitch + x0] + fx * y[y0 * yPitch + x1])
            + fy * ((1.0f - fx) * y[y1 * yPitch + x0] + fx * y[y1 * yPitch + x1]);

    // Chroma at half resolution, interleaved U V.
    float cx = fminf(fmaxf((sx + 0.5f) * 0.5f - 0.5f, 0.0f), srcWidth / 2 - 1.0f);
    float cy = fminf(fmaxf((sy + 0.5f) * 0.5f - 0.5f, 0.0f), srcHeight / 2 - 1.0f);
    int cx0 = (int) cx;
    int cy0 = (int) cy;
    int cx1 = min(cx0 + 1, srcWidth / 2 - 1);
    int cy1 = min(cy0 + 1, srcHeight / 2 - 1);
    float gx = cx - cx0;
    float gy = cy - cy0;
    const unsigned char* r0 = uv + cy0 * uvPitch;
    const unsigned char* r1 = uv + cy1 * uvPitch;
    float u = (1.0f - gy) * ((1.0f - gx) * r0[2 * cx0] + gx * r0[2 * cx1])
            + gy * ((1.0f - gx) * r1[2 * cx0] + gx * r1[2 * cx1]);
    float v = (1.0f - gy) * ((1.0f - gx) * r0[2 * cx0 + 1] + gx * r0[2 * cx1 + 1])
            + gy * ((1.0f - gx) * r1[2 * cx0 + 1] + gx * r1[2 * cx1 + 1]);

    float c = 1.164383f * (l - 16.0f);
    float d = u - 128.0f;
    float e = v - 128.0f;
    float r, g, b;
    if (bt709) {
        r = c + 1.792741f * e;
        g = c - 0.213249f * d - 0.532909f * e;
        b = c + 2.112402f * d;
    } else {
        r = c + 1.596027f * e;
        g = c - 0.391762f * d - 0.812968f * e;
        b = c + 2.017232f * d;
    }
    unsigned char* out = dst + dy * rowStride + (long long) dx * pixelStride;
    out[0] = (unsigned char) fminf(fmaxf(r + 0.5f, 0.0f), 255.0f);
    out[channelStride] = (unsigned char) fminf(fmaxf(g + 0.5f, 0.0f), 255.0f);
    out[2 * channelStride] = (unsigned char) fminf(fmaxf(b + 0.5f, 0.0f), 255.0f);
}
