package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The NVDEC structures as the decode API lays them out on Linux x86-64. The expected numbers are gcc's
 * {@code sizeof}/{@code offsetof} on NVIDIA's Video Codec SDK 13.0 headers as FFmpeg's nv-codec-headers carry them
 * (github.com/FFmpeg/nv-codec-headers, commit f2fb9b36d5e08d6211f7cf6377971c0570939e65,
 * {@code include/ffnvcodec/dynlink_cuviddec.h} and {@code dynlink_nvcuvid.h}), written here by hand from that run, not
 * from {@link CuvidStructs}: so a wrong constant there, or a binding writing a field at the wrong place, fails here.
 * The bindings are checked through what they write ({@link NvcuvidLibrary#createInfo}) and read
 * ({@link NvcuvidLibrary#videoFormat}).
 */
class CuvidStructsTest {

    @Test
    void sizesAreTheHeadersOnes() {
        assertThat(CuvidStructs.Caps.BYTES).as("sizeof(CUVIDDECODECAPS)").isEqualTo(88);
        assertThat(CuvidStructs.CreateInfo.BYTES).as("sizeof(CUVIDDECODECREATEINFO)").isEqualTo(176);
        assertThat(CuvidStructs.Reconfigure.BYTES).as("sizeof(CUVIDRECONFIGUREDECODERINFO)").isEqualTo(128);
        assertThat(CuvidStructs.PicParams.BYTES).as("sizeof(CUVIDPICPARAMS)").isEqualTo(4280);
        assertThat(CuvidStructs.ProcParams.BYTES).as("sizeof(CUVIDPROCPARAMS)").isEqualTo(264);
        assertThat(CuvidStructs.VideoFormat.BYTES).as("sizeof(CUVIDEOFORMAT)").isEqualTo(64);
        assertThat(CuvidStructs.DisplayInfo.BYTES).as("sizeof(CUVIDPARSERDISPINFO)").isEqualTo(24);
        assertThat(CuvidStructs.ParserParams.BYTES).as("sizeof(CUVIDPARSERPARAMS)").isEqualTo(136);
        assertThat(CuvidStructs.SourcePacket.BYTES).as("sizeof(CUVIDSOURCEDATAPACKET)").isEqualTo(32);
    }

    @Test
    void offsetsAreTheHeadersOnes() {
        // CUVIDDECODECAPS
        assertThat(new int[] {CuvidStructs.Caps.CODEC, CuvidStructs.Caps.CHROMA, CuvidStructs.Caps.BIT_DEPTH_MINUS8,
                CuvidStructs.Caps.SUPPORTED, CuvidStructs.Caps.ENGINES, CuvidStructs.Caps.OUTPUT_FORMAT_MASK,
                CuvidStructs.Caps.MAX_WIDTH, CuvidStructs.Caps.MAX_HEIGHT, CuvidStructs.Caps.MAX_MACROBLOCKS,
                CuvidStructs.Caps.MIN_WIDTH, CuvidStructs.Caps.MIN_HEIGHT})
                .containsExactly(0, 4, 8, 24, 25, 26, 28, 32, 36, 40, 42);
        // CUVIDPICPARAMS: CurrPicIdx, field_pic_flag, ref_pic_flag, intra_pic_flag
        assertThat(new int[] {CuvidStructs.PicParams.CURRENT_PICTURE, CuvidStructs.PicParams.FIELD_PICTURE,
                CuvidStructs.PicParams.REFERENCE, CuvidStructs.PicParams.INTRA}).containsExactly(8, 12, 56, 60);
        // CUVIDPROCPARAMS: progressive_frame, second_field, top_field_first, unpaired_field, output_stream
        assertThat(new int[] {CuvidStructs.ProcParams.PROGRESSIVE, CuvidStructs.ProcParams.SECOND_FIELD,
                CuvidStructs.ProcParams.TOP_FIELD_FIRST, CuvidStructs.ProcParams.UNPAIRED_FIELD,
                CuvidStructs.ProcParams.OUTPUT_STREAM}).containsExactly(0, 4, 8, 12, 56);
        // CUVIDPARSERDISPINFO
        assertThat(new int[] {CuvidStructs.DisplayInfo.PICTURE, CuvidStructs.DisplayInfo.PROGRESSIVE,
                CuvidStructs.DisplayInfo.TOP_FIELD_FIRST, CuvidStructs.DisplayInfo.REPEAT_FIRST_FIELD,
                CuvidStructs.DisplayInfo.TIMESTAMP}).containsExactly(0, 4, 8, 12, 16);
        // CUVIDPARSERPARAMS
        assertThat(new int[] {CuvidStructs.ParserParams.CODEC, CuvidStructs.ParserParams.MAX_DECODE_SURFACES,
                CuvidStructs.ParserParams.CLOCK_RATE, CuvidStructs.ParserParams.ERROR_THRESHOLD,
                CuvidStructs.ParserParams.MAX_DISPLAY_DELAY, CuvidStructs.ParserParams.USER_DATA,
                CuvidStructs.ParserParams.SEQUENCE_CALLBACK, CuvidStructs.ParserParams.DECODE_CALLBACK,
                CuvidStructs.ParserParams.DISPLAY_CALLBACK, CuvidStructs.ParserParams.OPERATING_POINT_CALLBACK,
                CuvidStructs.ParserParams.SEI_CALLBACK, CuvidStructs.ParserParams.EXTENDED_VIDEO_INFO})
                .containsExactly(0, 4, 8, 12, 16, 40, 48, 56, 64, 72, 80, 128);
        // CUVIDSOURCEDATAPACKET
        assertThat(new int[] {CuvidStructs.SourcePacket.FLAGS, CuvidStructs.SourcePacket.PAYLOAD_SIZE,
                CuvidStructs.SourcePacket.PAYLOAD, CuvidStructs.SourcePacket.TIMESTAMP}).containsExactly(0, 8, 16, 24);
        // CUVIDRECONFIGUREDECODERINFO
        assertThat(new int[] {CuvidStructs.Reconfigure.WIDTH, CuvidStructs.Reconfigure.HEIGHT,
                CuvidStructs.Reconfigure.TARGET_WIDTH, CuvidStructs.Reconfigure.TARGET_HEIGHT,
                CuvidStructs.Reconfigure.DECODE_SURFACES, CuvidStructs.Reconfigure.DISPLAY_AREA,
                CuvidStructs.Reconfigure.TARGET_RECT}).containsExactly(0, 4, 8, 12, 16, 68, 76);
        // the enums' values
        assertThat(new int[] {CuvidStructs.CODEC_H264, CuvidStructs.CODEC_HEVC, CuvidStructs.CHROMA_420,
                CuvidStructs.SURFACE_NV12, CuvidStructs.CREATE_PREFER_CUVID}).containsExactly(4, 8, 1, 0, 4);
    }

    @Test
    void theCreateInfoCarriesEachFieldWhereTheHeaderPutsIt() {
        NvdecApi.DecoderConfig config = new NvdecApi.DecoderConfig(new NvdecApi.CodecKey(8, 1, 0), 352, 288, 1920, 1088,
                0, 0, 340, 256, 22, 10);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = NvcuvidLibrary.createInfo(arena, config);
            assertThat(info.byteSize()).isEqualTo(176);
            assertThat(info.get(JAVA_LONG, 0)).as("ulWidth").isEqualTo(352);
            assertThat(info.get(JAVA_LONG, 8)).as("ulHeight").isEqualTo(288);
            assertThat(info.get(JAVA_LONG, 16)).as("ulNumDecodeSurfaces").isEqualTo(22);
            assertThat(info.get(JAVA_INT, 24)).as("CodecType").isEqualTo(8);
            assertThat(info.get(JAVA_INT, 28)).as("ChromaFormat").isEqualTo(1);
            assertThat(info.get(JAVA_LONG, 32)).as("ulCreationFlags: cudaVideoCreate_PreferCUVID").isEqualTo(4);
            assertThat(info.get(JAVA_LONG, 40)).as("bitDepthMinus8").isZero();
            assertThat(info.get(JAVA_LONG, 56)).as("ulMaxWidth").isEqualTo(1920);
            assertThat(info.get(JAVA_LONG, 64)).as("ulMaxHeight").isEqualTo(1088);
            assertThat(rect(info, 80)).as("display_area").containsExactly(0, 0, 340, 256);
            assertThat(info.get(JAVA_INT, 88)).as("OutputFormat: NV12").isZero();
            assertThat(info.get(JAVA_INT, 92)).as("DeinterlaceMode: weave").isZero();
            assertThat(info.get(JAVA_LONG, 96)).as("ulTargetWidth").isEqualTo(340);
            assertThat(info.get(JAVA_LONG, 104)).as("ulTargetHeight").isEqualTo(256);
            assertThat(info.get(JAVA_LONG, 112)).as("ulNumOutputSurfaces").isEqualTo(10);
            assertThat(info.get(JAVA_LONG, 120)).as("vidLock: none").isZero();
            assertThat(rect(info, 128)).as("target_rect").containsExactly(0, 0, 340, 256);
        }
    }

    /** A rectangle of four shorts (left, top, right, bottom). */
    private static int[] rect(MemorySegment s, long at) {
        return new int[] {s.get(JAVA_SHORT, at), s.get(JAVA_SHORT, at + 2), s.get(JAVA_SHORT, at + 4),
                s.get(JAVA_SHORT, at + 6)};
    }

    @Test
    void theVideoFormatIsReadFromWhereTheHeaderPutsIt() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment f = arena.allocate(64);
            f.set(JAVA_INT, 0, 4);                 // codec: H.264
            f.set(JAVA_BYTE, 12, (byte) 1);        // progressive_sequence
            f.set(JAVA_BYTE, 13, (byte) 2);        // bit_depth_luma_minus8
            f.set(JAVA_BYTE, 15, (byte) 7);        // min_num_decode_surfaces
            f.set(JAVA_INT, 16, 1920);             // coded_width
            f.set(JAVA_INT, 20, 1088);             // coded_height
            f.set(JAVA_INT, 24, 0);                // display_area.left
            f.set(JAVA_INT, 28, 4);                // .top
            f.set(JAVA_INT, 32, 1920);             // .right
            f.set(JAVA_INT, 36, 1084);             // .bottom
            f.set(JAVA_INT, 40, 2);                // chroma_format: 4:2:2
            f.set(JAVA_BYTE, 56, (byte) (5 | 1 << 3));   // video_format 5, video_full_range_flag 1 (gcc: bit 3)
            f.set(JAVA_BYTE, 59, (byte) 1);        // matrix_coefficients: BT.709
            NvdecApi.VideoFormat format = NvcuvidLibrary.videoFormat(f);
            assertThat(format).isEqualTo(new NvdecApi.VideoFormat(new NvdecApi.CodecKey(4, 2, 2), 1920, 1088, 0, 4, 1920,
                    1084, 7, true, true, 1));
        }
    }
}
