package io.skewguard.migrator.policy;

/**
 * Text id of a shard: the slot zero-padded to four digits, a slash, the node id ({@code 0042/node-7}).
 *
 * <p>The padding makes the lexicographic order of shard ids (the order of commits in a switch
 * batch, docs/design.md §8) the numeric order of slots, then node ids; slots are below 4096.
 */
public final class ShardId {

    private ShardId() {}

    public static String of(int slot, String node) {
        if (slot < 0 || slot > 9999) {
            throw new IllegalArgumentException("slot out of range: " + slot);
        }
        return String.format("%04d/%s", slot, node);
    }
}
