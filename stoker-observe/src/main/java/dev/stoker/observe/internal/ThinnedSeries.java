package dev.stoker.observe.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The snapshots of a whole run in bounded memory, oldest first: at most {@code maxItems}; past that every other one
 * goes and from then on only every second new one is kept (the stride doubles each time), so a run of any length is
 * kept from its start at a resolution that halves as it grows. What the bench report embeds and what the dashboard
 * sends a page opened mid-run.
 */
public final class ThinnedSeries<T> {
    private final int maxItems;
    private final List<T> items = new ArrayList<>();
    private int stride = 1;
    private long offered;

    public ThinnedSeries(int maxItems) {
        if (maxItems < 2) {
            throw new IllegalArgumentException("maxItems: " + maxItems + " (expected: 2+)");
        }
        this.maxItems = maxItems;
    }

    /** Offers the next snapshot; {@code keep} keeps it whatever the stride (a run's last one). */
    public synchronized void add(T item, boolean keep) {
        if (offered++ % stride != 0 && !keep) {
            return;
        }
        if (items.size() >= maxItems) {
            List<T> everySecond = new ArrayList<>(items.size() / 2 + 1);
            for (int i = 0; i < items.size(); i += 2) {
                everySecond.add(items.get(i));
            }
            items.clear();
            items.addAll(everySecond);
            stride *= 2;
        }
        items.add(item);
    }

    /** The snapshots kept, oldest first. */
    public synchronized List<T> items() {
        return List.copyOf(items);
    }
}
