package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.subprocess.ItemCodec;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The child's source: the items ring read as {@link EpochTokens} tokens. An item becomes an
 * {@link ItemLineage} with a fresh {@link InputTicket}; epoch ends and the end become the markers. With a batch
 * stage first, an item goes into it here (and one the parent already has is dropped here).
 */
final class ItemsReader implements EpochTokens.Tokens {
    private final SharedRing items;
    private final ItemCodec<Object> codec;
    private final BlockingQueue<Outbound> outbox;
    private final boolean firstIsBatch;
    private final SharedRing.Record record = new SharedRing.Record();

    ItemsReader(SharedRing items, ItemCodec<Object> codec, BlockingQueue<Outbound> outbox, boolean firstIsBatch) {
        this.items = items;
        this.codec = codec;
        this.outbox = outbox;
        this.firstIsBatch = firstIsBatch;
    }

    @Override
    public Object next() throws InterruptedException {
        Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
        while (true) {
            while (!items.poll(record)) {
                backoff.idle();
            }
            Object token;
            try {
                token = switch (record.type) {
                    case Wire.ITEM -> {
                        long[] skips = Wire.itemSkips(record.payload);
                        yield new ItemLineage(new InputTicket(record.id, skips, outbox), 0,
                                codec.decode(record.payload.asSlice(Wire.itemPrefixBytes(skips.length))));
                    }
                    case Wire.EPOCH_END -> EpochTokens.EPOCH_END;
                    case Wire.END -> EpochTokens.END;
                    default -> throw new IllegalStateException("unknown record type " + record.type + " from the parent");
                };
            } finally {
                items.release();
            }
            if (firstIsBatch && token instanceof ItemLineage item && !item.enterBatch()) {
                continue;
            }
            return token;
        }
    }
}
