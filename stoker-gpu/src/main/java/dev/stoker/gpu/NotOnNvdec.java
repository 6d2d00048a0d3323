package dev.stoker.gpu;

/**
 * What NVDEC cannot decode, found while decoding (the parser's format, frames coming back in host memory): the video
 * goes to the CPU fallback, with this reason. No stack trace: it is a routing decision, not a fault.
 */
final class NotOnNvdec extends RuntimeException {
    NotOnNvdec(String reason) {
        super(reason, null, false, false);
    }
}
