package dev.stoker.pipeline.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Finds the {@link VarHandle} of a field for a static initialiser, where a missing field is a build error. */
final class VarHandles {
    private VarHandles() { }

    static VarHandle field(MethodHandles.Lookup lookup, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(lookup.lookupClass(), name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
