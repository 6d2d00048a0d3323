package dev.stoker.gpu;

/**
 * What an {@link NvdecSession} asks of NVIDIA's decode API ({@code libnvcuvid}: the video parser and the decoder)
 * and of the device it decodes on (a stream, events, the clip kernel). {@link DriverNvdecApi} is the real one,
 * through FFM; the tests' fake models engines, decode surfaces, display delay and mapping on a model clock, so
 * that the session's contract (frames mapped, decoders made, streams used, host waits) is checked without a GPU.
 *
 * <p>Handles (parser, decoder, stream, event) are plain {@code long}s, as the driver's are. The parser calls its
 * {@link ParserCallbacks} synchronously, on the thread inside {@link #parse}, as {@code cuvidParseVideoData} does.
 * Every method may throw a {@link CudaException} naming the call.
 */
interface NvdecApi {
    /** {@code CUVID_PKT_ENDOFSTREAM}: flushes the parser (it displays what it holds, then starts afresh). */
    int PACKET_END_OF_STREAM = 0x01;
    /** {@code CUVID_PKT_TIMESTAMP}: the packet's timestamp is valid. */
    int PACKET_TIMESTAMP = 0x02;
    /** {@code CUVID_PKT_ENDOFPICTURE}: the packet holds exactly one picture, so it is decoded without waiting for the next. */
    int PACKET_END_OF_PICTURE = 0x08;

    /** {@code cuvidGetDecoderCaps} for one (codec, chroma, bit depth). */
    DecoderCaps decoderCaps(CodecKey key);

    /** {@code cuvidCreateDecoder}; returns the decoder. */
    long createDecoder(DecoderConfig config);

    /** {@code cuvidReconfigureDecoder}: a new coded size (within the decoder's maximum) or surface count, same codec. */
    void reconfigureDecoder(long decoder, DecoderConfig config);

    /** {@code cuvidDestroyDecoder}. */
    void destroyDecoder(long decoder);

    /** {@code cuvidCreateVideoParser} for {@code codec} (a {@code cudaVideoCodec}), calling {@code callbacks}. */
    long createParser(int codec, int maxDecodeSurfaces, int maxDisplayDelay, int clockRate, ParserCallbacks callbacks);

    /** {@code cuvidParseVideoData}: {@code bytes} bytes at native {@code address} (0 and 0 with end of stream). */
    void parse(long parser, long address, long bytes, int flags, long timestamp);

    /** {@code cuvidDestroyVideoParser}. */
    void destroyParser(long parser);

    /** {@code cuvidDecodePicture} of the picture the parser handed to {@link ParserCallbacks#decode}. */
    void decodePicture(long decoder, Picture picture);

    /**
     * {@code cuvidMapVideoFrame64}: the decoded picture as an NV12 surface in device memory, its post-processing
     * queued on {@code stream}. The driver waits for the picture's decode to end before it returns.
     */
    MappedFrame map(long decoder, DisplayInfo picture, long stream);

    /** {@code cuvidUnmapVideoFrame64}: the output surface goes back to the decoder. */
    void unmap(long decoder, long devicePointer);

    /** A stream that does not synchronise with the legacy default stream ({@code CU_STREAM_NON_BLOCKING}). */
    long createStream();

    void destroyStream(long stream);

    /** An event without timing ({@code CU_EVENT_DISABLE_TIMING}: cheaper to record and wait on). */
    long createEvent();

    void recordEvent(long event, long stream);

    /** Blocks the host until {@code event} has completed ({@code cuEventSynchronize}): the session's one wait a clip. */
    void synchronize(long event);

    void destroyEvent(long event);

    /** Queues the clip kernel: every frame of {@code job}, converted, cropped and resized, into its slot, one launch. */
    void launchClip(ClipKernelJob job, long stream);

    /** What decodes, as the decoder caps and the decoders are keyed: a {@code cudaVideoCodec}, a chroma format, a bit depth. */
    record CodecKey(int codec, int chromaFormat, int bitDepthMinus8) {
    }

    /**
     * {@code CUVIDDECODECAPS}' answer.
     *
     * @param engines NVDEC engines that decode this key ({@code nNumNVDECs})
     * @param nv12    whether NV12 output surfaces are offered ({@code nOutputFormatMask} bit 0)
     */
    record DecoderCaps(boolean supported, int engines, boolean nv12, int minWidth, int minHeight, int maxWidth,
                       int maxHeight, long maxMacroblocks) {
        /** Why a coded frame of {@code width x height} cannot be decoded, or null when it can. */
        String refusal(int width, int height) {
            if (!supported) {
                return "not supported by this GPU's NVDEC";
            }
            if (!nv12) {
                return "no NV12 output surfaces for it";
            }
            if (width < minWidth || height < minHeight || width > maxWidth || height > maxHeight) {
                return width + "x" + height + " outside NVDEC's " + minWidth + "x" + minHeight + " to " + maxWidth + "x"
                        + maxHeight;
            }
            if ((long) (width / 16) * (height / 16) > maxMacroblocks) {
                return width + "x" + height + ": more than NVDEC's " + maxMacroblocks + " macroblocks";
            }
            return null;
        }
    }

    /**
     * {@code CUVIDDECODECREATEINFO} (and {@code CUVIDRECONFIGUREDECODERINFO}) as the session fills it: NV12 output at
     * the display size (no scaling: the clip kernel resizes), weave (progressive), the dedicated engines.
     *
     * @param maxWidth  the largest coded width a reconfiguration may bring without a new decoder
     * @param surfaces  decode surfaces (the parser's minimum plus the display delay's pictures)
     * @param outputs   output surfaces: pictures mapped at once
     */
    record DecoderConfig(CodecKey key, int codedWidth, int codedHeight, int maxWidth, int maxHeight, int displayLeft,
                         int displayTop, int displayRight, int displayBottom, int surfaces, int outputs) {
        int displayWidth() {
            return displayRight - displayLeft;
        }

        int displayHeight() {
            return displayBottom - displayTop;
        }
    }

    /**
     * What the parser's sequence callback reports ({@code CUVIDEOFORMAT}).
     *
     * @param minSurfaces   the decode surfaces the stream needs ({@code min_num_decode_surfaces})
     * @param fullRange     {@code video_full_range_flag}
     * @param matrix        {@code matrix_coefficients} (ISO/IEC 23091-2: 1 BT.709, 5/6 BT.601, 9/10 BT.2020, 2 unspecified)
     */
    record VideoFormat(CodecKey key, int codedWidth, int codedHeight, int displayLeft, int displayTop, int displayRight,
                       int displayBottom, int minSurfaces, boolean progressive, boolean fullRange, int matrix) {
    }

    /**
     * A picture the parser hands over for decoding ({@code CUVIDPICPARAMS}).
     *
     * @param index     its decode surface ({@code CurrPicIdx})
     * @param reference whether later pictures reference it ({@code ref_pic_flag}): if not, and it is not wanted, it is
     *                  never decoded
     * @param intra        whether it is an intra picture
     * @param field        whether it is a field (not a frame)
     * @param nativeParams the parser's structure, passed back to {@link NvdecApi#decodePicture} as it is (0 for fakes)
     */
    record Picture(int index, boolean reference, boolean intra, boolean field, long nativeParams) {
    }

    /** A picture in display order ({@code CUVIDPARSERDISPINFO}); {@code timestamp} is its packet's. */
    record DisplayInfo(int index, boolean progressive, boolean topFieldFirst, int repeatFirstField, long timestamp) {
    }

    /** A mapped NV12 surface: the luma plane at {@code pointer}, the interleaved chroma plane after {@code height} rows. */
    record MappedFrame(long pointer, int pitch) {
    }

    /**
     * The parser's callbacks. Each returns what {@code nvcuvid.h} asks: 0 fails the parse; the sequence callback
     * returns the decode surfaces it set up (more than 1 re-sizes the parser's picture buffer).
     */
    interface ParserCallbacks {
        int sequence(VideoFormat format);

        int decode(Picture picture);

        /** {@code picture} is null for the end-of-stream notice. */
        int display(DisplayInfo picture);
    }
}
