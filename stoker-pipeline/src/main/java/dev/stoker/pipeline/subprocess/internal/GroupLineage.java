package dev.stoker.pipeline.subprocess.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a batch stage made of several items, and what later stages made of that: the value (first the list of
 * the members' values) and the members, whose units end when the group is written or discarded. The parent
 * learns every member's input and sequence from the record's prefix, so that it can account for each input's
 * share.
 */
final class GroupLineage implements Lineage {
    final List<ItemLineage> members;
    private final Object value;

    private GroupLineage(List<ItemLineage> members, Object value) {
        this.members = members;
        this.value = value;
    }

    /** A batch stage's output: a list of item lineages. */
    static GroupLineage of(List<?> batch) {
        List<ItemLineage> members = new ArrayList<>(batch.size());
        List<Object> values = new ArrayList<>(batch.size());
        for (Object each : batch) {
            ItemLineage item = (ItemLineage) each;
            members.add(item);
            values.add(item.value());
        }
        return new GroupLineage(List.copyOf(members), Collections.unmodifiableList(values));
    }

    @Override
    public Object value() { return value; }

    @Override
    public GroupLineage with(Object next) {
        return new GroupLineage(members, next);
    }

    @Override
    public void finish() {
        members.forEach(ItemLineage::finish);
    }

    @Override
    public long blamedInputId() {
        return members.isEmpty() ? -1 : members.getFirst().ticket.inputId;
    }

    @Override
    public long prefixBytes() {
        return Wire.groupPrefixBytes(members.size());
    }

    /** Members the parent already has were dropped before the batch: a group is always new. */
    @Override
    public boolean alreadyDelivered() { return false; }

    @Override
    public Outbound outbound() {
        return new Outbound(Wire.GROUP_OUTPUT, blamedInputId(), 0, value, members);
    }

    @Override
    public String toString() {
        return members.size() + " items from '" + (members.isEmpty() ? "" : members.getFirst()) + "'";
    }
}
