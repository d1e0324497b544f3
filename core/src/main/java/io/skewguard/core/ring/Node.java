package io.skewguard.core.ring;

import java.util.Objects;

/**
 * A physical storage node as the ring sees it.
 *
 * @param id         the node id, never blank
 * @param rack       the node's rack, or {@code null} when unknown (an unknown rack never conflicts
 *                   with another node's rack when candidate sets are made rack-distinct)
 * @param ringWeight how many units of {@link HashRing#vnodesPerUnit()} virtual points the node gets:
 *                   1.0 by default, more for a node with more capacity; finite and positive
 */
public record Node(String id, String rack, double ringWeight) {

    public Node {
        Objects.requireNonNull(id, "node id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("node id must not be blank");
        }
        if (rack != null && rack.isBlank()) {
            rack = null;
        }
        if (!(ringWeight > 0) || Double.isInfinite(ringWeight)) {
            throw new IllegalArgumentException(
                    "ring weight of node '" + id + "' must be finite and positive, but is " + ringWeight);
        }
    }

    /** A node on an unknown rack with ring weight 1. */
    public static Node of(String id) {
        return new Node(id, null, 1.0);
    }

    /** A node on {@code rack} with ring weight 1. */
    public static Node of(String id, String rack) {
        return new Node(id, rack, 1.0);
    }
}
