package io.skewguard.migrator.policy;

/**
 * What the coordinator keeps about one node's membership of its cluster (the {@code membership}
 * store, JSON): its standing, and for a drain what it held when the drain began.
 *
 * @param node node id
 * @param standing where the node stands
 * @param rack rack, or null when unknown
 * @param since wall-clock time of the last change of standing
 * @param drainMarkedAt wall-clock time the node was marked read-only ({@link Standing#DRAINING}); a capacity
 *     report older than this cannot show the drain finished
 * @param drainShards shards with bytes the node held when its drain began
 * @param drainBytes their bytes
 */
public record Member(String node, Standing standing, String rack, long since, long drainMarkedAt, int drainShards, long drainBytes) {

    /** Where a node stands. */
    public enum Standing {
        /** A member taking writes: a migration target, eligible as a replacement. */
        ACTIVE,
        /** Reported capacity but not admitted ({@code auto-join} off): left out of plans until an operator adds it. */
        WAITING,
        /** Read-only in every candidate set; its shards are moved away. */
        DRAINING,
        /** Drained and replaced in every candidate set. */
        DRAINED,
        /** Removed by an operator and replaced in every candidate set. */
        REMOVED,
        /** Silent for {@code node-expiry} and replaced in every candidate set. */
        LOST;

        /** True for nodes whose figures count in a plan (as targets, or as draining sources). */
        public boolean planned() {
            return this == ACTIVE || this == DRAINING;
        }
    }

    public static Member active(String node, String rack, long now) {
        return new Member(node, Standing.ACTIVE, rack, now, 0, 0, 0);
    }

    public Member with(Standing next, long now) {
        return new Member(node, next, rack, now, drainMarkedAt, drainShards, drainBytes);
    }

    public Member draining(long now, int shards, long bytes) {
        return new Member(node, Standing.DRAINING, rack, now, now, shards, bytes);
    }
}
