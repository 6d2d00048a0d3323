package dev.stoker.gpu;

/**
 * Sizes and field offsets of the NVDEC structures Stoker reads and writes, on Linux x86-64 (LP64: {@code tcu_ulong}
 * is {@code unsigned long}, 8 bytes), from NVIDIA's Video Codec SDK 13.0 headers as FFmpeg's nv-codec-headers carry
 * them ({@code include/ffnvcodec/dynlink_cuviddec.h} and {@code dynlink_nvcuvid.h}, commit {@code f2fb9b36}, "Bump for
 * 13.0.19.1"). The values are gcc's {@code sizeof}/{@code offsetof} on those headers; {@code CuvidStructsTest} pins
 * each one, so a change here is a deliberate one. The SDK keeps these layouts stable across versions (new fields
 * come out of reserved space), which is what lets one binary run on the drivers of several SDKs.
 */
final class CuvidStructs {
    private CuvidStructs() {
    }

    /** {@code CUVIDDECODECAPS}. */
    static final class Caps {
        static final int BYTES = 88;
        static final int CODEC = 0;
        static final int CHROMA = 4;
        static final int BIT_DEPTH_MINUS8 = 8;
        static final int SUPPORTED = 24;            // unsigned char
        static final int ENGINES = 25;              // unsigned char nNumNVDECs
        static final int OUTPUT_FORMAT_MASK = 26;   // unsigned short
        static final int MAX_WIDTH = 28;
        static final int MAX_HEIGHT = 32;
        static final int MAX_MACROBLOCKS = 36;
        static final int MIN_WIDTH = 40;            // unsigned short
        static final int MIN_HEIGHT = 42;           // unsigned short

        private Caps() {
        }
    }

    /** {@code CUVIDDECODECREATEINFO}. */
    static final class CreateInfo {
        static final int BYTES = 176;
        static final int WIDTH = 0;                 // tcu_ulong
        static final int HEIGHT = 8;
        static final int DECODE_SURFACES = 16;
        static final int CODEC = 24;                // int
        static final int CHROMA = 28;               // int
        static final int CREATION_FLAGS = 32;
        static final int BIT_DEPTH_MINUS8 = 40;
        static final int INTRA_ONLY = 48;
        static final int MAX_WIDTH = 56;
        static final int MAX_HEIGHT = 64;
        static final int DISPLAY_AREA = 80;         // short left, top, right, bottom
        static final int OUTPUT_FORMAT = 88;        // int
        static final int DEINTERLACE_MODE = 92;     // int
        static final int TARGET_WIDTH = 96;
        static final int TARGET_HEIGHT = 104;
        static final int OUTPUT_SURFACES = 112;
        static final int VIDEO_LOCK = 120;          // pointer
        static final int TARGET_RECT = 128;         // short left, top, right, bottom

        private CreateInfo() {
        }
    }

    /** {@code CUVIDRECONFIGUREDECODERINFO}. */
    static final class Reconfigure {
        static final int BYTES = 128;
        static final int WIDTH = 0;                 // unsigned int
        static final int HEIGHT = 4;
        static final int TARGET_WIDTH = 8;
        static final int TARGET_HEIGHT = 12;
        static final int DECODE_SURFACES = 16;
        static final int DISPLAY_AREA = 68;         // short left, top, right, bottom
        static final int TARGET_RECT = 76;

        private Reconfigure() {
        }
    }

    /** {@code CUVIDPICPARAMS}: read in the decode callback, passed back to {@code cuvidDecodePicture} as it is. */
    static final class PicParams {
        static final int BYTES = 4280;
        static final int CURRENT_PICTURE = 8;       // CurrPicIdx
        static final int FIELD_PICTURE = 12;
        static final int REFERENCE = 56;            // ref_pic_flag
        static final int INTRA = 60;                // intra_pic_flag

        private PicParams() {
        }
    }

    /** {@code CUVIDPROCPARAMS}: the map call's post-processing parameters. */
    static final class ProcParams {
        static final int BYTES = 264;
        static final int PROGRESSIVE = 0;
        static final int SECOND_FIELD = 4;
        static final int TOP_FIELD_FIRST = 8;
        static final int UNPAIRED_FIELD = 12;
        static final int OUTPUT_STREAM = 56;        // CUstream

        private ProcParams() {
        }
    }

    /** {@code CUVIDEOFORMAT}: what the sequence callback reports. */
    static final class VideoFormat {
        static final int BYTES = 64;
        static final int CODEC = 0;
        static final int PROGRESSIVE = 12;          // unsigned char progressive_sequence
        static final int BIT_DEPTH_LUMA_MINUS8 = 13;
        static final int MIN_DECODE_SURFACES = 15;  // unsigned char
        static final int CODED_WIDTH = 16;
        static final int CODED_HEIGHT = 20;
        static final int DISPLAY_AREA = 24;         // int left, top, right, bottom
        static final int CHROMA = 40;
        static final int SIGNAL_FLAGS = 56;         // video_format:3, video_full_range_flag:1, reserved:4
        static final int MATRIX = 59;               // unsigned char matrix_coefficients

        private VideoFormat() {
        }
    }

    /** {@code CUVIDPARSERDISPINFO}. */
    static final class DisplayInfo {
        static final int BYTES = 24;
        static final int PICTURE = 0;
        static final int PROGRESSIVE = 4;
        static final int TOP_FIELD_FIRST = 8;
        static final int REPEAT_FIRST_FIELD = 12;
        static final int TIMESTAMP = 16;            // long long

        private DisplayInfo() {
        }
    }

    /** {@code CUVIDPARSERPARAMS}. */
    static final class ParserParams {
        static final int BYTES = 136;
        static final int CODEC = 0;
        static final int MAX_DECODE_SURFACES = 4;
        static final int CLOCK_RATE = 8;
        static final int ERROR_THRESHOLD = 12;
        static final int MAX_DISPLAY_DELAY = 16;
        static final int USER_DATA = 40;
        static final int SEQUENCE_CALLBACK = 48;
        static final int DECODE_CALLBACK = 56;
        static final int DISPLAY_CALLBACK = 64;
        static final int OPERATING_POINT_CALLBACK = 72;
        static final int SEI_CALLBACK = 80;
        static final int EXTENDED_VIDEO_INFO = 128;

        private ParserParams() {
        }
    }

    /** {@code CUVIDSOURCEDATAPACKET}. */
    static final class SourcePacket {
        static final int BYTES = 32;
        static final int FLAGS = 0;                 // tcu_ulong
        static final int PAYLOAD_SIZE = 8;          // tcu_ulong
        static final int PAYLOAD = 16;              // pointer
        static final int TIMESTAMP = 24;            // long long

        private SourcePacket() {
        }
    }

    /** {@code cudaVideoCodec} values the session decodes. */
    static final int CODEC_H264 = 4;
    static final int CODEC_HEVC = 8;
    /** {@code cudaVideoChromaFormat_420}. */
    static final int CHROMA_420 = 1;
    /** {@code cudaVideoSurfaceFormat_NV12}. */
    static final int SURFACE_NV12 = 0;
    /** {@code cudaVideoDeinterlaceMode_Weave} (progressive content) and {@code _Adaptive}. */
    static final int DEINTERLACE_WEAVE = 0;
    static final int DEINTERLACE_ADAPTIVE = 2;
    /** {@code cudaVideoCreate_PreferCUVID}: the dedicated video engines. */
    static final int CREATE_PREFER_CUVID = 0x04;
}
