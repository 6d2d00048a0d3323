package dev.stoker.pipeline.subprocess;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The built-in codecs: {@code bytes} ({@code byte[]}), {@code string} (UTF-8), {@code int}, {@code long},
 * {@code path}, and {@code list:<codec>} for a {@code List} of any codec's items. {@link #named} resolves
 * these names, and any other name as the class name of an {@link ItemCodec}.
 */
public final class ItemCodecs {
    private ItemCodecs() { }

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** {@code byte[]}, copied with one {@code MemorySegment.copy} each way. */
    public static final ItemCodec<byte[]> BYTES = new ItemCodec<>() {
        @Override public String name() { return "bytes"; }
        @Override public long encodedBytes(byte[] item) { return item.length; }
        @Override public void encode(byte[] item, MemorySegment target) {
            MemorySegment.copy(item, 0, target, ValueLayout.JAVA_BYTE, 0, item.length);
        }
        @Override public byte[] decode(MemorySegment source) { return source.toArray(ValueLayout.JAVA_BYTE); }
    };

    /** {@code String} as UTF-8. */
    public static final ItemCodec<String> STRING = new ItemCodec<>() {
        @Override public String name() { return "string"; }
        @Override public long encodedBytes(String item) { return utf8Length(item); }
        @Override public void encode(String item, MemorySegment target) {
            byte[] bytes = item.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }
        @Override public String decode(MemorySegment source) {
            return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
    };

    public static final ItemCodec<Integer> INTEGER = new ItemCodec<>() {
        @Override public String name() { return "int"; }
        @Override public long encodedBytes(Integer item) { return 4; }
        @Override public void encode(Integer item, MemorySegment target) { target.set(INT, 0, item); }
        @Override public Integer decode(MemorySegment source) { return source.get(INT, 0); }
    };

    public static final ItemCodec<Long> LONG_CODEC = new ItemCodec<>() {
        @Override public String name() { return "long"; }
        @Override public long encodedBytes(Long item) { return 8; }
        @Override public void encode(Long item, MemorySegment target) { target.set(LONG, 0, item); }
        @Override public Long decode(MemorySegment source) { return source.get(LONG, 0); }
    };

    /** A {@code Path} as its UTF-8 string (resolved against the child's working directory, which is the parent's). */
    public static final ItemCodec<Path> PATH = new ItemCodec<>() {
        @Override public String name() { return "path"; }
        @Override public long encodedBytes(Path item) { return STRING.encodedBytes(item.toString()); }
        @Override public void encode(Path item, MemorySegment target) { STRING.encode(item.toString(), target); }
        @Override public Path decode(MemorySegment source) { return Path.of(STRING.decode(source)); }
    };

    /** A {@code List} of {@code element} items: a count, then each item's length and bytes. Decodes to an immutable list. */
    public static <T> ItemCodec<List<T>> list(ItemCodec<T> element) {
        Objects.requireNonNull(element, "element");
        return new ItemCodec<>() {
            @Override public String name() { return "list:" + element.name(); }

            @Override public long encodedBytes(List<T> item) {
                long bytes = 4;
                for (T each : item) {
                    bytes += 8 + element.encodedBytes(each);
                }
                return bytes;
            }

            @Override public void encode(List<T> item, MemorySegment target) {
                target.set(INT, 0, item.size());
                long offset = 4;
                for (T each : item) {
                    long length = element.encodedBytes(each);
                    target.set(LONG, offset, length);
                    element.encode(each, target.asSlice(offset + 8, length));
                    offset += 8 + length;
                }
            }

            @Override public List<T> decode(MemorySegment source) {
                int count = source.get(INT, 0);
                List<T> items = new ArrayList<>(count);
                long offset = 4;
                try {
                    for (int i = 0; i < count; i++) {
                        long length = source.get(LONG, offset);
                        items.add(element.decode(source.asSlice(offset + 8, length)));
                        offset += 8 + length;
                    }
                } catch (RuntimeException | Error e) {
                    dev.stoker.pipeline.internal.Resources.release(items);   // elements decoded into pooled buffers go back
                    throw e;
                }
                return List.copyOf(items);
            }
        };
    }

    /** The codec called {@code name}: a built-in's name, {@code list:<name>}, or an {@link ItemCodec} class name. */
    @SuppressWarnings("unchecked")
    public static <T> ItemCodec<T> named(String name) {
        Objects.requireNonNull(name, "name");
        ItemCodec<?> codec = switch (name) {
            case "bytes" -> BYTES;
            case "string" -> STRING;
            case "int" -> INTEGER;
            case "long" -> LONG_CODEC;
            case "path" -> PATH;
            default -> name.startsWith("list:") ? list(named(name.substring(5))) : instantiate(name);
        };
        return (ItemCodec<T>) codec;
    }

    private static ItemCodec<?> instantiate(String className) {
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> type = Class.forName(className, true, loader != null ? loader : ItemCodecs.class.getClassLoader());
            if (!ItemCodec.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException("codec: " + className + " does not implement " + ItemCodec.class.getName());
            }
            return (ItemCodec<?>) type.getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("codec: '" + className + "' (expected: bytes, string, int, long, path,"
                    + " list:<codec>, or the class name of an ItemCodec on the class path)", e);
        } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
            throw new IllegalArgumentException("codec: " + className + " needs a public no-arg constructor", e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("codec: " + className + " constructor failed: " + e.getCause(), e.getCause());
        }
    }

    /** UTF-8 length without encoding for ASCII strings (the common case: paths, names); exact otherwise. */
    private static long utf8Length(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return s.length();
    }
}
