package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.EnumMap;
import java.util.Map;

/**
 * NVIDIA's decode API ({@code libnvcuvid.so.1}, installed with the driver) through FFM, as {@link CudaDriver} is the
 * driver API: the video parser, whose three callbacks are FFM upcalls into a {@link NvdecApi.ParserCallbacks}, and
 * the decoder. Struct layouts are {@link CuvidStructs}'. Every {@code CUresult} is checked; a failure is a
 * {@link CudaException} naming the call. The calls need the device's context current on the calling thread.
 *
 * <p>An upcall must never throw into native code (that ends the JVM): what a callback throws is kept and rethrown by
 * {@link #parse} once the driver has returned, and the callback answers 0, which makes the driver stop the parse.
 */
final class NvcuvidLibrary {
    static final String LIBRARY = NvdecCodecs.DECODER_LIBRARY;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor CALLBACK = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SEQUENCE;
    private static final MethodHandle DECODE;
    private static final MethodHandle DISPLAY;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MethodType type = MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class);
            SEQUENCE = lookup.findVirtual(Upcalls.class, "sequence", type);
            DECODE = lookup.findVirtual(Upcalls.class, "decode", type);
            DISPLAY = lookup.findVirtual(Upcalls.class, "display", type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CudaDriver driver;
    private final DriverLibrary library;
    private final Map<Function, MethodHandle> functions = new EnumMap<>(Function.class);

    /** The decode API's functions called here: each one's symbol, which also names it in errors, and arguments. */
    private enum Function {
        GET_DECODER_CAPS("cuvidGetDecoderCaps", ADDRESS),
        CREATE_DECODER("cuvidCreateDecoder", ADDRESS, ADDRESS),
        RECONFIGURE_DECODER("cuvidReconfigureDecoder", JAVA_LONG, ADDRESS),
        DESTROY_DECODER("cuvidDestroyDecoder", JAVA_LONG),
        DECODE_PICTURE("cuvidDecodePicture", JAVA_LONG, ADDRESS),
        MAP_VIDEO_FRAME("cuvidMapVideoFrame64", JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
        UNMAP_VIDEO_FRAME("cuvidUnmapVideoFrame64", JAVA_LONG, JAVA_LONG),
        CREATE_VIDEO_PARSER("cuvidCreateVideoParser", ADDRESS, ADDRESS),
        PARSE_VIDEO_DATA("cuvidParseVideoData", JAVA_LONG, ADDRESS),
        DESTROY_VIDEO_PARSER("cuvidDestroyVideoParser", JAVA_LONG);

        final String symbol;
        private final MemoryLayout[] arguments;

        Function(String symbol, MemoryLayout... arguments) {
            this.symbol = symbol;
            this.arguments = arguments;
        }
    }

    private NvcuvidLibrary(CudaDriver driver, DriverLibrary library) {
        this.driver = driver;
        this.library = library;
        for (Function function : Function.values()) {
            functions.put(function, library.bind(function.symbol, function.arguments));
        }
    }

    /**
     * Loads {@code libnvcuvid.so.1} for the life of the JVM.
     *
     * @throws GpuUnavailableException when it is missing or lacks an entry point (a driver older than SDK 9's)
     */
    static NvcuvidLibrary load(CudaDriver driver) {
        try {
            SymbolLookup symbols = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            return new NvcuvidLibrary(driver,
                    new DriverLibrary(LIBRARY, symbols, "one with the Video Codec SDK 9.0+ decode API"));
        } catch (IllegalArgumentException e) {
            throw new GpuUnavailableException(LIBRARY + " not found: the NVIDIA driver's video decoder library (NVDEC)"
                    + " is not installed, so NVDEC decoding cannot run", e);
        }
    }

    NvdecApi.DecoderCaps decoderCaps(NvdecApi.CodecKey key) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment caps = arena.allocate(CuvidStructs.Caps.BYTES, 8);
            caps.set(JAVA_INT, CuvidStructs.Caps.CODEC, key.codec());
            caps.set(JAVA_INT, CuvidStructs.Caps.CHROMA, key.chromaFormat());
            caps.set(JAVA_INT, CuvidStructs.Caps.BIT_DEPTH_MINUS8, key.bitDepthMinus8());
            call(Function.GET_DECODER_CAPS, f -> (int) f.invokeExact(caps));
            return new NvdecApi.DecoderCaps(caps.get(JAVA_BYTE, CuvidStructs.Caps.SUPPORTED) != 0,
                    Byte.toUnsignedInt(caps.get(JAVA_BYTE, CuvidStructs.Caps.ENGINES)),
                    (Short.toUnsignedInt(caps.get(JAVA_SHORT, CuvidStructs.Caps.OUTPUT_FORMAT_MASK))
                            & (1 << CuvidStructs.SURFACE_NV12)) != 0,
                    Short.toUnsignedInt(caps.get(JAVA_SHORT, CuvidStructs.Caps.MIN_WIDTH)),
                    Short.toUnsignedInt(caps.get(JAVA_SHORT, CuvidStructs.Caps.MIN_HEIGHT)),
                    caps.get(JAVA_INT, CuvidStructs.Caps.MAX_WIDTH), caps.get(JAVA_INT, CuvidStructs.Caps.MAX_HEIGHT),
                    Integer.toUnsignedLong(caps.get(JAVA_INT, CuvidStructs.Caps.MAX_MACROBLOCKS)));
        }
    }

    long createDecoder(NvdecApi.DecoderConfig config) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = createInfo(arena, config);
            MemorySegment out = arena.allocate(ADDRESS);
            call(Function.CREATE_DECODER, f -> (int) f.invokeExact(out, info));
            return out.get(ADDRESS, 0).address();
        }
    }

    /** The create info for {@code config}: NV12 at the display size, weave, the dedicated engines, no context lock. */
    static MemorySegment createInfo(Arena arena, NvdecApi.DecoderConfig config) {
        MemorySegment info = arena.allocate(CuvidStructs.CreateInfo.BYTES, 8);
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.WIDTH, config.codedWidth());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.HEIGHT, config.codedHeight());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.DECODE_SURFACES, config.surfaces());
        info.set(JAVA_INT, CuvidStructs.CreateInfo.CODEC, config.key().codec());
        info.set(JAVA_INT, CuvidStructs.CreateInfo.CHROMA, config.key().chromaFormat());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.CREATION_FLAGS, CuvidStructs.CREATE_PREFER_CUVID);
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.BIT_DEPTH_MINUS8, config.key().bitDepthMinus8());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.MAX_WIDTH, config.maxWidth());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.MAX_HEIGHT, config.maxHeight());
        rect(info, CuvidStructs.CreateInfo.DISPLAY_AREA, config.displayLeft(), config.displayTop(), config.displayRight(),
                config.displayBottom());
        info.set(JAVA_INT, CuvidStructs.CreateInfo.OUTPUT_FORMAT, CuvidStructs.SURFACE_NV12);
        info.set(JAVA_INT, CuvidStructs.CreateInfo.DEINTERLACE_MODE, CuvidStructs.DEINTERLACE_WEAVE);
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.TARGET_WIDTH, config.displayWidth());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.TARGET_HEIGHT, config.displayHeight());
        info.set(JAVA_LONG, CuvidStructs.CreateInfo.OUTPUT_SURFACES, config.outputs());
        rect(info, CuvidStructs.CreateInfo.TARGET_RECT, 0, 0, config.displayWidth(), config.displayHeight());
        return info;
    }

    void reconfigureDecoder(long decoder, NvdecApi.DecoderConfig config) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(CuvidStructs.Reconfigure.BYTES, 8);
            info.set(JAVA_INT, CuvidStructs.Reconfigure.WIDTH, config.codedWidth());
            info.set(JAVA_INT, CuvidStructs.Reconfigure.HEIGHT, config.codedHeight());
            info.set(JAVA_INT, CuvidStructs.Reconfigure.TARGET_WIDTH, config.displayWidth());
            info.set(JAVA_INT, CuvidStructs.Reconfigure.TARGET_HEIGHT, config.displayHeight());
            info.set(JAVA_INT, CuvidStructs.Reconfigure.DECODE_SURFACES, config.surfaces());
            rect(info, CuvidStructs.Reconfigure.DISPLAY_AREA, config.displayLeft(), config.displayTop(),
                    config.displayRight(), config.displayBottom());
            rect(info, CuvidStructs.Reconfigure.TARGET_RECT, 0, 0, config.displayWidth(), config.displayHeight());
            call(Function.RECONFIGURE_DECODER, f -> (int) f.invokeExact(decoder, info));
        }
    }

    private static void rect(MemorySegment s, long at, int left, int top, int right, int bottom) {
        s.set(JAVA_SHORT, at, (short) left);
        s.set(JAVA_SHORT, at + 2, (short) top);
        s.set(JAVA_SHORT, at + 4, (short) right);
        s.set(JAVA_SHORT, at + 6, (short) bottom);
    }

    void destroyDecoder(long decoder) {
        call(Function.DESTROY_DECODER, f -> (int) f.invokeExact(decoder));
    }

    void decodePicture(long decoder, long picParams) {
        MemorySegment params = MemorySegment.ofAddress(picParams);
        call(Function.DECODE_PICTURE, f -> (int) f.invokeExact(decoder, params));
    }

    NvdecApi.MappedFrame map(long decoder, NvdecApi.DisplayInfo picture, long stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment proc = arena.allocate(CuvidStructs.ProcParams.BYTES, 8);
            proc.set(JAVA_INT, CuvidStructs.ProcParams.PROGRESSIVE, picture.progressive() ? 1 : 0);
            proc.set(JAVA_INT, CuvidStructs.ProcParams.SECOND_FIELD, picture.repeatFirstField() + 1);
            proc.set(JAVA_INT, CuvidStructs.ProcParams.TOP_FIELD_FIRST, picture.topFieldFirst() ? 1 : 0);
            proc.set(JAVA_INT, CuvidStructs.ProcParams.UNPAIRED_FIELD, picture.repeatFirstField() < 0 ? 1 : 0);
            proc.set(JAVA_LONG, CuvidStructs.ProcParams.OUTPUT_STREAM, stream);
            MemorySegment pointer = arena.allocate(JAVA_LONG);
            MemorySegment pitch = arena.allocate(JAVA_INT);
            int index = picture.index();
            call(Function.MAP_VIDEO_FRAME, f -> (int) f.invokeExact(decoder, index, pointer, pitch, proc));
            return new NvdecApi.MappedFrame(pointer.get(JAVA_LONG, 0), pitch.get(JAVA_INT, 0));
        }
    }

    void unmap(long decoder, long devicePointer) {
        call(Function.UNMAP_VIDEO_FRAME, f -> (int) f.invokeExact(decoder, devicePointer));
    }

    /** A parser whose callbacks go to {@code callbacks}; its upcall stubs live until the parser is closed. */
    Parser createParser(int codec, int maxDecodeSurfaces, int maxDisplayDelay, int clockRate,
                        NvdecApi.ParserCallbacks callbacks) {
        Arena arena = Arena.ofShared();
        try {
            Upcalls upcalls = new Upcalls(callbacks);
            MemorySegment params = arena.allocate(CuvidStructs.ParserParams.BYTES, 8);
            params.set(JAVA_INT, CuvidStructs.ParserParams.CODEC, codec);
            params.set(JAVA_INT, CuvidStructs.ParserParams.MAX_DECODE_SURFACES, maxDecodeSurfaces);
            params.set(JAVA_INT, CuvidStructs.ParserParams.CLOCK_RATE, clockRate);
            params.set(JAVA_INT, CuvidStructs.ParserParams.ERROR_THRESHOLD, 100);
            params.set(JAVA_INT, CuvidStructs.ParserParams.MAX_DISPLAY_DELAY, maxDisplayDelay);
            params.set(ADDRESS, CuvidStructs.ParserParams.SEQUENCE_CALLBACK,
                    LINKER.upcallStub(SEQUENCE.bindTo(upcalls), CALLBACK, arena));
            params.set(ADDRESS, CuvidStructs.ParserParams.DECODE_CALLBACK,
                    LINKER.upcallStub(DECODE.bindTo(upcalls), CALLBACK, arena));
            params.set(ADDRESS, CuvidStructs.ParserParams.DISPLAY_CALLBACK,
                    LINKER.upcallStub(DISPLAY.bindTo(upcalls), CALLBACK, arena));
            MemorySegment out = arena.allocate(ADDRESS);
            call(Function.CREATE_VIDEO_PARSER, f -> (int) f.invokeExact(out, params));
            return new Parser(out.get(ADDRESS, 0).address(), upcalls, arena);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** {@code cuvidParseVideoData}; rethrows what a callback threw during it. */
    void parse(Parser parser, long address, long bytes, int flags, long timestamp) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(CuvidStructs.SourcePacket.BYTES, 8);
            packet.set(JAVA_LONG, CuvidStructs.SourcePacket.FLAGS, flags);
            packet.set(JAVA_LONG, CuvidStructs.SourcePacket.PAYLOAD_SIZE, bytes);
            packet.set(JAVA_LONG, CuvidStructs.SourcePacket.PAYLOAD, address);
            packet.set(JAVA_LONG, CuvidStructs.SourcePacket.TIMESTAMP, timestamp);
            long handle = parser.handle;
            int result = invoke(Function.PARSE_VIDEO_DATA, f -> (int) f.invokeExact(handle, packet));
            parser.upcalls.rethrow();
            driver.check(Function.PARSE_VIDEO_DATA.symbol, result);
        }
    }

    void destroyParser(Parser parser) {
        try {
            call(Function.DESTROY_VIDEO_PARSER, f -> (int) f.invokeExact(parser.handle));
        } finally {
            parser.arena.close();
        }
    }

    /** A downcall of the function it is given ({@code invokeExact} with the function's arguments). */
    @FunctionalInterface
    private interface Call {
        int call(MethodHandle function) throws Throwable;
    }

    /** Calls {@code function} and checks its {@code CUresult}: a failure is a {@link CudaException} naming it. */
    private void call(Function function, Call call) {
        driver.check(function.symbol, invoke(function, call));
    }

    /** Calls {@code function} and returns its {@code CUresult}, unchecked. */
    private int invoke(Function function, Call call) {
        MethodHandle handle = functions.get(function);
        return library.invoke(() -> call.call(handle));
    }

    /** A parser: its handle, and what its upcalls need to live as long as it. */
    record Parser(long handle, Upcalls upcalls, Arena arena) {
    }

    /** The parser's callbacks as upcalls: they read the driver's structures and never throw into it. */
    static final class Upcalls {
        private final NvdecApi.ParserCallbacks callbacks;
        private Throwable failure;

        Upcalls(NvdecApi.ParserCallbacks callbacks) {
            this.callbacks = callbacks;
        }

        int sequence(MemorySegment user, MemorySegment format) {
            try {
                return callbacks.sequence(videoFormat(format.reinterpret(CuvidStructs.VideoFormat.BYTES)));
            } catch (Throwable t) {
                return fail(t);
            }
        }

        int decode(MemorySegment user, MemorySegment params) {
            try {
                MemorySegment p = params.reinterpret(CuvidStructs.PicParams.BYTES);
                return callbacks.decode(new NvdecApi.Picture(p.get(JAVA_INT, CuvidStructs.PicParams.CURRENT_PICTURE),
                        p.get(JAVA_INT, CuvidStructs.PicParams.REFERENCE) != 0, p.get(JAVA_INT, CuvidStructs.PicParams.INTRA) != 0,
                        p.get(JAVA_INT, CuvidStructs.PicParams.FIELD_PICTURE) != 0, p.address()));
            } catch (Throwable t) {
                return fail(t);
            }
        }

        int display(MemorySegment user, MemorySegment info) {
            try {
                if (info.equals(MemorySegment.NULL)) {
                    return callbacks.display(null);
                }
                MemorySegment d = info.reinterpret(CuvidStructs.DisplayInfo.BYTES);
                return callbacks.display(new NvdecApi.DisplayInfo(d.get(JAVA_INT, CuvidStructs.DisplayInfo.PICTURE),
                        d.get(JAVA_INT, CuvidStructs.DisplayInfo.PROGRESSIVE) != 0,
                        d.get(JAVA_INT, CuvidStructs.DisplayInfo.TOP_FIELD_FIRST) != 0,
                        d.get(JAVA_INT, CuvidStructs.DisplayInfo.REPEAT_FIRST_FIELD),
                        d.get(JAVA_LONG, CuvidStructs.DisplayInfo.TIMESTAMP)));
            } catch (Throwable t) {
                return fail(t);
            }
        }

        private int fail(Throwable t) {
            if (failure == null) {
                failure = t;
            }
            return 0;
        }

        /** Throws (once) what a callback threw during the last parse. */
        void rethrow() {
            Throwable t = failure;
            failure = null;
            KeptFailure.rethrow(t);
        }
    }

    /** {@code CUVIDEOFORMAT} as the session reads it. */
    static NvdecApi.VideoFormat videoFormat(MemorySegment f) {
        int signal = Byte.toUnsignedInt(f.get(JAVA_BYTE, CuvidStructs.VideoFormat.SIGNAL_FLAGS));
        return new NvdecApi.VideoFormat(new NvdecApi.CodecKey(f.get(JAVA_INT, CuvidStructs.VideoFormat.CODEC),
                f.get(JAVA_INT, CuvidStructs.VideoFormat.CHROMA),
                Byte.toUnsignedInt(f.get(JAVA_BYTE, CuvidStructs.VideoFormat.BIT_DEPTH_LUMA_MINUS8))),
                f.get(JAVA_INT, CuvidStructs.VideoFormat.CODED_WIDTH), f.get(JAVA_INT, CuvidStructs.VideoFormat.CODED_HEIGHT),
                f.get(JAVA_INT, CuvidStructs.VideoFormat.DISPLAY_AREA), f.get(JAVA_INT, CuvidStructs.VideoFormat.DISPLAY_AREA + 4),
                f.get(JAVA_INT, CuvidStructs.VideoFormat.DISPLAY_AREA + 8),
                f.get(JAVA_INT, CuvidStructs.VideoFormat.DISPLAY_AREA + 12),
                Byte.toUnsignedInt(f.get(JAVA_BYTE, CuvidStructs.VideoFormat.MIN_DECODE_SURFACES)),
                f.get(JAVA_BYTE, CuvidStructs.VideoFormat.PROGRESSIVE) != 0,
                // video_full_range_flag is the bit after the 3 of video_format (GCC allocates bit-fields from bit 0)
                (signal & 0x08) != 0,
                Byte.toUnsignedInt(f.get(JAVA_BYTE, CuvidStructs.VideoFormat.MATRIX)));
    }
}
