package io.skewguard.runtime.state;

import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * How much state an app may keep for the cluster and node ids its input names: every id is a key of
 * some store, so without a bound one producer writing random ids grows every store forever.
 *
 * <p>{@link #checkId} refuses ids no store should hold ({@code invalid: ...}); {@link #overClusters}
 * and {@link #overNodes} give the dead-letter reason ({@code over-capacity: ...}) for a record that
 * would add one id too many; {@code nodeExpiry} is how long a node may send nothing before it is
 * removed from every store.
 *
 * @param maxClusters most clusters one stream task keeps
 * @param maxNodesPerCluster most nodes of one cluster
 * @param nodeExpiry a node that sent nothing this long (event time) is forgotten
 */
public record StateLimits(int maxClusters, int maxNodesPerCluster, Duration nodeExpiry) {

    /** Longest id accepted, in UTF-8 bytes (ids are store keys and record keys). */
    public static final int MAX_ID_BYTES = 255;

    /** No practical bound: for tests and tools that build an app's parts without settings. */
    public static final StateLimits UNBOUNDED = new StateLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Duration.ofDays(36500));

    public StateLimits {
        if (maxClusters < 1 || maxNodesPerCluster < 1) {
            throw new IllegalArgumentException("max clusters and max nodes per cluster must be at least 1");
        }
        if (nodeExpiry.isNegative() || nodeExpiry.isZero()) {
            throw new IllegalArgumentException("node expiry must be positive, was " + nodeExpiry);
        }
    }

    /** The limits of an app whose model declares the three {@link CommonSettings} limits. */
    public static StateLimits from(Settings s) {
        return new StateLimits(s.integer(CommonSettings.MAX_CLUSTERS), s.integer(CommonSettings.MAX_NODES_PER_CLUSTER),
                s.duration(CommonSettings.NODE_EXPIRY));
    }

    public long nodeExpiryMs() {
        return nodeExpiry.toMillis();
    }

    /**
     * Why {@code id} (a {@code what} id: "cluster", "node") cannot be a key, as a dead-letter reason,
     * or empty when it can: empty, longer than {@value #MAX_ID_BYTES} UTF-8 bytes, or holding a
     * control character (stores join ids with one as a separator).
     */
    public static Optional<String> checkId(String what, String id) {
        if (id == null || id.isEmpty()) {
            return Optional.of("invalid: empty " + what + " id");
        }
        int slot = id.hashCode() & (CHECKED.length - 1);
        if (CHECKED[slot] == id) {
            return Optional.empty(); // this very String passed before (decoders share the strings of ids they read)
        }
        // a char is at most 3 UTF-8 bytes (a surrogate pair, 2 chars, is 4): only a long id is encoded
        int bytes = id.length() * 3 <= MAX_ID_BYTES ? 0 : id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ID_BYTES) {
            return Optional.of("invalid: " + what + " id of " + bytes + " bytes, more than " + MAX_ID_BYTES);
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return Optional.of("invalid: " + what + " id holds control character U+"
                        + String.format("%04X", (int) id.charAt(i)));
            }
        }
        CHECKED[slot] = id;
        return Optional.empty();
    }

    /**
     * Ids that passed {@link #checkId}, by their hash: the same String object passes again without its
     * characters being read. An id is immutable, so a slot overwritten by another thread only costs a
     * check; at most this many strings (of at most {@value #MAX_ID_BYTES} bytes) are kept alive. With
     * 1,024 slots, 432 of the ids {@code node-000} … {@code node-511} shared a slot with another and
     * were read character by character on every record (17 of the 106 ns that stage one took per
     * record in {@code skewguard bench take}); with 8,192 none of them do, nor of {@code storage-0}
     * … {@code storage-511}.
     */
    private static final String[] CHECKED = new String[8192];

    /** The reason to refuse a record of new cluster {@code cluster} when {@code held} are kept already, or empty. */
    public Optional<String> overClusters(String cluster, long held) {
        if (held < maxClusters) {
            return Optional.empty();
        }
        return Optional.of("over-capacity: cluster " + cluster + " would be cluster " + (held + 1)
                + ", more than max-clusters " + maxClusters);
    }

    /** The reason to refuse a record of new node {@code node} when {@code held} of its cluster are kept, or empty. */
    public Optional<String> overNodes(String cluster, String node, long held) {
        if (held < maxNodesPerCluster) {
            return Optional.empty();
        }
        return Optional.of("over-capacity: node " + node + " would be node " + (held + 1) + " of cluster " + cluster
                + ", more than max-nodes-per-cluster " + maxNodesPerCluster);
    }

    /** Whether a node last heard of at {@code lastSeen} is expired at {@code now} (both event time, ms). */
    public boolean expired(long lastSeen, long now) {
        return lastSeen < now - nodeExpiryMs();
    }
}
