package dev.stoker.store.shard.internal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The bytes of a shard file, version {@value #FORMAT_VERSION}:
 * <pre>
 *   header   "STKSHARD" | u32 version | u32 n | n bytes of JSON {format, options} | u32 crc32c(JSON) | zero pad to 64
 *   records  sample payloads, each 64-aligned: packets back to back, each followed by 64 zero bytes
 *   index    per entry: u32 length | entry bytes ({@link RecordEntry}) | u32 crc32c(entry bytes)
 *   footer   u32 firstSource | u32 endSource | u64 indexOffset | u64 indexBytes | u32 entries
 *            | u32 crc32c(index) | u32 crc32c(footer so far) | u32 0 | "STKSEND1"      (48 bytes)
 * </pre>
 * All integers big-endian. A shard is written under {@code .NAME.tmp} and renamed when its footer is
 * on disk, so a file named {@code shard-*.stk} is complete.
 */
public final class ShardLayout {
    public static final int FORMAT_VERSION = 1;
    public static final byte[] HEADER_MAGIC = "STKSHARD".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    public static final byte[] FOOTER_MAGIC = "STKSEND1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    public static final int FOOTER_BYTES = 48;
    static final int ALIGNMENT = 64;
    public static final String SHARD_PREFIX = "shard-";
    public static final String SHARD_SUFFIX = ".stk";

    private ShardLayout() {
    }

    /** Shards are named by the first source index they cover, so names sort in sample order and never clash. */
    public static String shardName(int firstSource) {
        return String.format(java.util.Locale.ROOT, "%s%07d%s", SHARD_PREFIX, firstSource, SHARD_SUFFIX);
    }

    public static boolean isShardName(String name) {
        return name.startsWith(SHARD_PREFIX) && name.endsWith(SHARD_SUFFIX);
    }

    public static String tempName(String shardName) {
        return "." + shardName + ".tmp";
    }

    public static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    public static int crc32c(ByteBuffer buffer) {
        CRC32C crc = new CRC32C();
        crc.update(buffer);
        return (int) crc.getValue();
    }
}
