package dev.stoker.video;

import java.nio.ByteBuffer;

/**
 * What must match for an open decoder to be reused for another video after a flush: same codec,
 * same coded geometry and format, same out-of-band headers (ByteBuffer compares by content).
 */
record DecoderKey(int codecId, int width, int height, int pixelFormat, int timeBaseNum, int timeBaseDen,
                  ByteBuffer extradata) {
}
