package dev.stoker.gpu;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link NvdecApi} on a real device: {@code libnvcuvid} through {@link NvcuvidLibrary}, streams and events through
 * {@link CudaDriver}, the clip kernel through {@link Nv12Kernel}. Each call makes the device's context current on the
 * calling thread first (the decode API does not bind it by itself). Thread-safe: sessions share one.
 */
final class DriverNvdecApi implements NvdecApi {
    private final CudaDevice device;
    private final NvcuvidLibrary library;
    private final Nv12Kernel kernel;
    private final Map<Long, NvcuvidLibrary.Parser> parsers = new ConcurrentHashMap<>();

    private DriverNvdecApi(CudaDevice device, NvcuvidLibrary library, Nv12Kernel kernel) {
        this.device = device;
        this.library = library;
        this.kernel = kernel;
    }

    /**
     * The decode API on {@code device}, drawing with {@code kernel}.
     *
     * @throws GpuUnavailableException when the driver's decoder library is missing
     */
    static DriverNvdecApi open(CudaDevice device, Nv12Kernel kernel) {
        return new DriverNvdecApi(device, NvcuvidLibrary.load(device.driver()), kernel);
    }

    @Override
    public DecoderCaps decoderCaps(CodecKey key) {
        device.bind();
        return library.decoderCaps(key);
    }

    @Override
    public long createDecoder(DecoderConfig config) {
        device.bind();
        return library.createDecoder(config);
    }

    @Override
    public void reconfigureDecoder(long decoder, DecoderConfig config) {
        device.bind();
        library.reconfigureDecoder(decoder, config);
    }

    @Override
    public void destroyDecoder(long decoder) {
        device.bind();
        library.destroyDecoder(decoder);
    }

    @Override
    public long createParser(int codec, int maxDecodeSurfaces, int maxDisplayDelay, int clockRate,
                             ParserCallbacks callbacks) {
        device.bind();
        NvcuvidLibrary.Parser parser = library.createParser(codec, maxDecodeSurfaces, maxDisplayDelay, clockRate, callbacks);
        parsers.put(parser.handle(), parser);
        return parser.handle();
    }

    @Override
    public void parse(long parser, long address, long bytes, int flags, long timestamp) {
        device.bind();
        library.parse(parser(parser), address, bytes, flags, timestamp);
    }

    @Override
    public void destroyParser(long parser) {
        device.bind();
        NvcuvidLibrary.Parser p = parsers.remove(parser);
        if (p != null) {
            library.destroyParser(p);
        }
    }

    private NvcuvidLibrary.Parser parser(long handle) {
        NvcuvidLibrary.Parser p = parsers.get(handle);
        if (p == null) {
            throw new IllegalStateException("parser 0x" + Long.toHexString(handle) + " is not open");
        }
        return p;
    }

    @Override
    public void decodePicture(long decoder, Picture picture) {
        library.decodePicture(decoder, picture.nativeParams());
    }

    @Override
    public MappedFrame map(long decoder, DisplayInfo picture, long stream) {
        device.bind();
        return library.map(decoder, picture, stream);
    }

    @Override
    public void unmap(long decoder, long devicePointer) {
        device.bind();
        library.unmap(decoder, devicePointer);
    }

    @Override
    public long createStream() {
        device.bind();
        return device.driver().streamCreate(CudaDriver.CU_STREAM_NON_BLOCKING);
    }

    @Override
    public void destroyStream(long stream) {
        device.bind();
        device.driver().call(CudaDriver.HandleCall.STREAM_DESTROY, stream);
    }

    @Override
    public long createEvent() {
        device.bind();
        return device.driver().eventCreate(CudaDriver.CU_EVENT_DISABLE_TIMING);
    }

    @Override
    public void recordEvent(long event, long stream) {
        device.bind();
        device.driver().eventRecord(event, stream);
    }

    @Override
    public void synchronize(long event) {
        device.bind();
        device.driver().call(CudaDriver.HandleCall.EVENT_SYNCHRONIZE, event);
    }

    @Override
    public void destroyEvent(long event) {
        device.bind();
        device.driver().call(CudaDriver.HandleCall.EVENT_DESTROY, event);
    }

    @Override
    public void launchClip(ClipKernelJob job, long stream) {
        kernel.launchClip(job, stream);
    }
}
