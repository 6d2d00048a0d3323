package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.Pipeline;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A parent JVM for {@link SubprocessNoOrphansTest}: starts an isolated pipeline over an endless source, prints
 * {@code child <pid>} once the child works, and blocks with the consumer stopped until it is killed.
 */
public final class OrphanParentMain {
    private OrphanParentMain() { }

    public static void main(String[] args) throws Exception {
        AtomicLong child = new AtomicLong();
        Pipeline<String> p = Pipeline.from(Stream.iterate(0, i -> i + 1).map(i -> "w" + i).iterator())
                .map("upper", TestStages.Upper.class, "")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(child::set))
                .build();
        p.iterator().next();   // the child is up and working
        System.out.println("child " + child.get());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
