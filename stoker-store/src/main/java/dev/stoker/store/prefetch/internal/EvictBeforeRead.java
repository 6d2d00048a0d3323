package dev.stoker.store.prefetch.internal;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.loader.dataset.internal.TarIndex;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A cold page cache for {@link dev.stoker.video.loader.VideoLoader}, like the {@code nocache} tool: the fetch
 * stage evicts each video file's pages ({@link PageCache#evict}) just before it reads the file, so that every
 * read, in every epoch, comes from the device. Use it with
 * {@code options.withFetchHook(EvictBeforeRead.class)}; it works in a child JVM too ({@code splitAfter}).
 * Eviction is advice: see {@link PageCache}.
 */
public final class EvictBeforeRead implements FetchHook {

    @Override
    public void beforeRead(Path file) throws IOException {
        try {
            Optional<ArchiveMembers.Member> member = ArchiveMembers.find(file);
            if (member.isPresent()) {
                // A member of a tar archive (WebDataset shards): its range of the archive.
                TarIndex.Member m = member.get().member();
                if (m.sizeBytes() > 0) { // a length of 0 would mean the rest of the archive
                    PageCache.evict(member.get().archive(), m.offset(), m.sizeBytes());
                }
            } else {
                PageCache.evict(file);
            }
        } catch (NoSuchFileException e) {
            // the read that follows reports the missing file, as it would without this hook
        }
    }
}
