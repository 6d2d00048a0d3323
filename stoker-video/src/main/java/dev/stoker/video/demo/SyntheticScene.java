package dev.stoker.video.demo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Draws the frames of one synthetic clip straight into YUV 4:2:0 planes.
 *
 * <p>A frame is a window onto a textured, wrap-around "world" (multi-octave value noise plus hard-edged
 * blocks) that the camera pans across, with shaded sprites moving on top. The class picks palette,
 * camera path and sprite motion, so classes differ in ways a model could learn; the clip seed varies
 * the details. Texture and motion give the encoder real residuals and motion vectors to code, so the
 * decoder later does the work it does on camera footage, unlike flat test patterns. Most of the work
 * per frame is bulk row copies from the heap world into the plane, which keeps generation far cheaper
 * than encoding.
 */
final class SyntheticScene {

    private enum Motion { BOUNCE, PARABOLA, ORBIT, PULSE, CROSS, FALL }

    private record Style(int baseLuma, int tintU, int tintV, double panX, double panY, double panCircle,
                         double shake, double waveAmplitude, Motion motion, int sprites, boolean round) {
    }

    private static Style styleOf(int classIndex) {
        return switch (classIndex) {
            case 0 -> new Style(120, 118, 134, 0.0, 1.6, 0, 0.6, 0, Motion.FALL, 1, false);      // abseiling
            case 1 -> new Style(140, 110, 130, 0.0, 0.0, 0, 0.3, 0, Motion.CROSS, 2, false);     // archery
            case 2 -> new Style(110, 130, 120, 0.0, 0.0, 0, 1.2, 0, Motion.PARABOLA, 3, true);   // juggling
            case 3 -> new Style(80, 135, 140, 0.0, 0.0, 4, 0.0, 0, Motion.PULSE, 4, true);       // drums
            case 4 -> new Style(130, 112, 125, 3.5, 0.0, 0, 0.8, 0, Motion.CROSS, 1, true);      // bike
            case 5 -> new Style(125, 120, 128, 5.0, 1.0, 0, 1.5, 0, Motion.BOUNCE, 2, false);    // skateboard
            case 6 -> new Style(135, 150, 105, 2.0, 0.0, 0, 0.5, 6, Motion.BOUNCE, 1, false);    // surfing
            case 7 -> new Style(120, 155, 110, 0.8, 0.0, 0, 0.0, 3, Motion.CROSS, 2, true);      // swimming
            case 8 -> new Style(150, 125, 130, 0.0, 0.0, 10, 0.0, 0, Motion.ORBIT, 1, true);     // tai chi
            default -> new Style(128, 115, 135, 1.5, 0.0, 0, 0.4, 0, Motion.CROSS, 2, false);    // dog walking
        };
    }

    private final int width;
    private final int height;
    private final double framesPerSecond;
    private final Style style;
    private final int worldWidth;
    private final int worldHeight;
    private final byte[] worldLuma;
    private final byte[] worldU;
    private final byte[] worldV;
    private final double[][] sprites; // per sprite: phase, speed, size, luma, u, v, x0, y0
    private final double panPhase;
    private final int cutFrame;

    SyntheticScene(int classIndex, long clipSeed, int width, int height, double framesPerSecond) {
        this.width = width;
        this.height = height;
        this.framesPerSecond = framesPerSecond;
        this.style = styleOf(classIndex % 10);
        this.worldWidth = Integer.highestOneBit(Math.max(512, width * 2) - 1) << 1;
        this.worldHeight = Integer.highestOneBit(Math.max(256, height * 2) - 1) << 1;
        SplittableRandom random = new SplittableRandom(clipSeed);
        this.worldLuma = lumaTexture(random);
        this.worldU = chromaTexture(random, style.tintU);
        this.worldV = chromaTexture(random, style.tintV);
        this.sprites = new double[style.sprites][];
        for (int i = 0; i < sprites.length; i++) {
            sprites[i] = new double[] {
                    random.nextDouble() * 2 * Math.PI, 0.6 + random.nextDouble() * 0.8,
                    height * (0.08 + random.nextDouble() * 0.08), 40 + random.nextInt(180),
                    60 + random.nextInt(136), 60 + random.nextInt(136),
                    random.nextDouble(), random.nextDouble()};
        }
        this.panPhase = random.nextDouble() * 2 * Math.PI;
        // A third of the clips have a shot change, as edited web videos do; encoders code it as an intra burst.
        this.cutFrame = random.nextInt(3) == 0 ? (int) ((2 + random.nextDouble() * 6) * framesPerSecond) : -1;
    }

    private byte[] lumaTexture(SplittableRandom random) {
        int[] acc = new int[worldWidth * worldHeight];
        int[][] octaves = {{128, 70}, {32, 40}, {8, 22}, {2, 10}};
        for (int[] octave : octaves) {
            addValueNoise(acc, worldWidth, worldHeight, octave[0], octave[1], random);
        }
        // Hard-edged blocks (buildings, furniture, trees) give edges that noise alone lacks.
        int blocks = worldWidth * worldHeight / 6000;
        for (int b = 0; b < blocks; b++) {
            int bw = 6 + random.nextInt(60);
            int bh = 6 + random.nextInt(80);
            int bx = random.nextInt(worldWidth);
            int by = random.nextInt(worldHeight);
            int delta = random.nextInt(121) - 60;
            for (int y = 0; y < bh; y++) {
                int row = ((by + y) & (worldHeight - 1)) * worldWidth;
                for (int x = 0; x < bw; x++) {
                    acc[row + ((bx + x) & (worldWidth - 1))] += delta;
                }
            }
        }
        byte[] out = new byte[acc.length];
        for (int i = 0; i < acc.length; i++) {
            out[i] = (byte) clamp(style.baseLuma + acc[i], 16, 235);
        }
        return out;
    }

    private byte[] chromaTexture(SplittableRandom random, int tint) {
        int w = worldWidth / 2;
        int h = worldHeight / 2;
        int[] acc = new int[w * h];
        addValueNoise(acc, w, h, 64, 36, random);
        addValueNoise(acc, w, h, 16, 12, random);
        byte[] out = new byte[acc.length];
        for (int i = 0; i < acc.length; i++) {
            out[i] = (byte) clamp(tint + acc[i], 16, 240);
        }
        return out;
    }

    /** Adds tileable bilinear value noise with the given cell size and amplitude (±amplitude/2). */
    private static void addValueNoise(int[] acc, int w, int h, int cell, int amplitude, SplittableRandom random) {
        int gw = Math.max(1, w / cell);
        int gh = Math.max(1, h / cell);
        int[] grid = new int[gw * gh];
        for (int i = 0; i < grid.length; i++) {
            grid[i] = random.nextInt(amplitude + 1) - amplitude / 2;
        }
        for (int y = 0; y < h; y++) {
            int gy = y / cell;
            int fy = (y % cell) * 256 / cell;
            int r0 = (gy % gh) * gw;
            int r1 = ((gy + 1) % gh) * gw;
            for (int x = 0; x < w; x++) {
                int gx = x / cell;
                int fx = (x % cell) * 256 / cell;
                int c0 = gx % gw;
                int c1 = (gx + 1) % gw;
                int top = grid[r0 + c0] * (256 - fx) + grid[r0 + c1] * fx;
                int bottom = grid[r1 + c0] * (256 - fx) + grid[r1 + c1] * fx;
                acc[y * w + x] += (top * (256 - fy) + bottom * fy) >> 16;
            }
        }
    }

    /** Renders frame {@code frameIndex} into the three planes (strides are FFmpeg's linesizes). */
    void render(int frameIndex, MemorySegment lumaPlane, int lumaStride, MemorySegment uPlane,
                MemorySegment vPlane, int chromaStride) {
        double t = frameIndex / framesPerSecond;
        double angle = panPhase + t * 0.9;
        double panX = style.panX * frameIndex + style.panCircle * 8 * Math.cos(angle)
                + style.shake * 3 * Math.sin(frameIndex * 1.7 + panPhase);
        double panY = style.panY * frameIndex + style.panCircle * 8 * Math.sin(angle)
                + style.shake * 3 * Math.sin(frameIndex * 2.3);
        if (cutFrame >= 0 && frameIndex >= cutFrame) {
            panX += worldWidth / 2.0;
            panY += worldHeight / 3.0;
        }
        // Even offsets keep luma and chroma windows aligned.
        int ox = Math.floorMod((int) Math.round(panX) & ~1, worldWidth);
        int oy = Math.floorMod((int) Math.round(panY) & ~1, worldHeight);
        for (int y = 0; y < height; y++) {
            int wave = style.waveAmplitude == 0 ? 0
                    : (int) Math.round(style.waveAmplitude * Math.sin(y * 0.07 + t * 3.0)) & ~1;
            int srcRow = ((oy + y) & (worldHeight - 1)) * worldWidth;
            copyWrapped(worldLuma, srcRow, worldWidth, Math.floorMod(ox + wave, worldWidth),
                    lumaPlane, (long) y * lumaStride, width);
        }
        int cw = width / 2;
        for (int y = 0; y < height / 2; y++) {
            int srcRow = (((oy >> 1) + y) & (worldHeight / 2 - 1)) * (worldWidth / 2);
            long dst = (long) y * chromaStride;
            copyWrapped(worldU, srcRow, worldWidth / 2, ox >> 1, uPlane, dst, cw);
            copyWrapped(worldV, srcRow, worldWidth / 2, ox >> 1, vPlane, dst, cw);
        }
        for (double[] sprite : sprites) {
            drawSprite(sprite, t, lumaPlane, lumaStride, uPlane, vPlane, chromaStride);
        }
    }

    private static void copyWrapped(byte[] world, int rowStart, int rowLength, int x, MemorySegment dst,
                                    long dstOffset, int count) {
        int first = Math.min(count, rowLength - x);
        MemorySegment.copy(world, rowStart + x, dst, ValueLayout.JAVA_BYTE, dstOffset, first);
        if (first < count) {
            MemorySegment.copy(world, rowStart, dst, ValueLayout.JAVA_BYTE, dstOffset + first, count - first);
        }
    }

    private void drawSprite(double[] s, double t, MemorySegment lumaPlane, int lumaStride,
                            MemorySegment uPlane, MemorySegment vPlane, int chromaStride) {
        double phase = s[0];
        double speed = s[1];
        double size = s[2];
        double cx;
        double cy;
        switch (style.motion) {
            case BOUNCE -> {
                cx = triangle(s[6] + t * speed * 0.23) * (width - 2 * size) + size;
                cy = triangle(s[7] + t * speed * 0.17) * (height - 2 * size) + size;
            }
            case PARABOLA -> {
                double a = phase + t * speed * 4.0;
                cx = width / 2.0 + width * 0.25 * Math.cos(a);
                cy = height * 0.8 - height * 0.6 * Math.abs(Math.sin(a));
            }
            case ORBIT -> {
                double a = phase + t * speed * 0.8;
                cx = width / 2.0 + width * 0.2 * Math.cos(a);
                cy = height / 2.0 + height * 0.2 * Math.sin(a);
                size *= 1.8;
            }
            case PULSE -> {
                cx = s[6] * (width - 2 * size) + size;
                cy = s[7] * (height - 2 * size) + size;
                size *= 0.7 + 0.5 * Math.abs(Math.sin(phase + t * speed * 9.0));
            }
            case CROSS -> {
                double span = width + 4 * size;
                cx = (s[6] * span + t * speed * width * 0.3) % span - 2 * size;
                cy = height * (0.45 + 0.35 * s[7]) + size * 0.3 * Math.sin(t * 8 * speed);
            }
            default -> { // FALL
                cx = width / 2.0 + width * 0.15 * Math.sin(phase + t * speed);
                cy = (s[7] * height + t * speed * height * 0.15) % (height + 2 * size) - size;
                size *= 1.5;
            }
        }
        int luma = (int) s[3];
        int top = (int) Math.max(0, Math.floor(cy - size));
        int bottom = (int) Math.min(height - 1, Math.ceil(cy + size));
        for (int y = top; y <= bottom; y++) {
            double dy = y - cy;
            double half = style.round ? Math.sqrt(Math.max(0, size * size - dy * dy)) : size * 0.7;
            int x0 = (int) Math.max(0, Math.round(cx - half));
            int x1 = (int) Math.min(width, Math.round(cx + half));
            if (x1 > x0) {
                // Vertical shading reads as a lit, round object and costs one fill per row.
                int shaded = clamp(luma - (int) (dy * 50 / size), 16, 235);
                lumaPlane.asSlice((long) y * lumaStride + x0, x1 - x0).fill((byte) shaded);
            }
        }
        for (int y = top >> 1; y <= bottom >> 1 && y < height / 2; y++) {
            double dy = 2 * y - cy;
            double half = style.round ? Math.sqrt(Math.max(0, size * size - dy * dy)) : size * 0.7;
            int x0 = (int) Math.max(0, Math.round((cx - half) / 2));
            int x1 = (int) Math.min(width / 2, Math.round((cx + half) / 2));
            if (x1 > x0) {
                long off = (long) y * chromaStride + x0;
                uPlane.asSlice(off, x1 - x0).fill((byte) (int) s[4]);
                vPlane.asSlice(off, x1 - x0).fill((byte) (int) s[5]);
            }
        }
    }

    private static double triangle(double x) {
        double f = x - Math.floor(x);
        return f < 0.5 ? 2 * f : 2 - 2 * f;
    }

    private static int clamp(int v, int lo, int hi) {
        return v < lo ? lo : Math.min(v, hi);
    }
}
