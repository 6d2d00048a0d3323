package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.EpochSource;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Turns a stream of tokens (items, then {@link #EPOCH_END}, … then {@link #END}) into an {@link EpochSource}
 * read by one thread: epoch {@code e}'s iterable yields items up to the next epoch end; once the next token
 * is {@link #END}, the next epoch is {@code null}. Both sides use it: the child over the items ring, the
 * parent over the results the supervisor hands on.
 */
final class EpochTokens implements EpochSource<Object> {
    static final Object EPOCH_END = new Object() {
        @Override public String toString() { return "EPOCH_END"; }
    };
    static final Object END = new Object() {
        @Override public String toString() { return "END"; }
    };

    /** Where tokens come from; blocks until one is there; answers interruption. */
    interface Tokens {
        Object next() throws InterruptedException;
    }

    private final Tokens tokens;
    private Object lookahead;
    private boolean ended;

    EpochTokens(Tokens tokens) {
        this.tokens = tokens;
    }

    private Object peek() {
        if (lookahead == null) {
            try {
                lookahead = tokens.next();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClosedByInterrupt();
            }
        }
        return lookahead;
    }

    @Override
    public Iterable<Object> epoch(int epoch) {
        if (ended || peek() == END) {
            ended = true;
            return null;
        }
        // Not Spliterators.iterator, as the other look-ahead iterators: the token hasNext() peeked stays this source's
        // (lookahead), not an iterator's, so an iterator left after hasNext() loses no item to the next one or to epoch().
        return () -> new Iterator<>() {
            private boolean done;

            @Override
            public boolean hasNext() {
                if (done) {
                    return false;
                }
                Object next = peek();
                if (next == EPOCH_END) {
                    lookahead = null;
                    done = true;
                    return false;
                }
                if (next == END) {   // a stream that ends without an epoch end
                    done = true;
                    return false;
                }
                return true;
            }

            @Override
            public Object next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Object item = lookahead;
                lookahead = null;
                return item;
            }
        };
    }

    /** Thrown out of the source when its thread is interrupted (the pipeline is closing). */
    static final class ClosedByInterrupt extends RuntimeException {
        ClosedByInterrupt() {
            super("interrupted: pipeline closing", null, false, false);
        }
    }
}
