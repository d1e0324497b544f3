package io.skewguard.core.ring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The candidate set of a slot: distinct node indexes, anchor first (docs/design.md §3.2). A write for the slot
 * goes to one of these nodes, chosen by {@link WeightedPick}.
 *
 * <p>Immutable: the array is copied in, and {@link #nodes()} returns a copy. Hot paths read it with
 * {@link #size()} and {@link #node(int)}, which allocate nothing.
 *
 * @param nodes node indexes (see {@link NodeIndex}), non-empty, distinct, non-negative
 */
public record CandidateSet(int[] nodes) {

    public CandidateSet {
        if (nodes == null || nodes.length == 0) {
            throw new IllegalArgumentException("a candidate set needs at least one node");
        }
        nodes = nodes.clone();
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] < 0) {
                throw new IllegalArgumentException("candidate " + i + " has negative node index " + nodes[i]);
            }
            for (int j = 0; j < i; j++) {
                if (nodes[j] == nodes[i]) {
                    throw new IllegalArgumentException(
                            "node index " + nodes[i] + " appears twice in candidate set " + Arrays.toString(nodes));
                }
            }
        }
    }

    /** A candidate set of the given node indexes, anchor first. */
    public static CandidateSet of(int... nodes) {
        return new CandidateSet(nodes);
    }

    /** A copy of the node indexes, anchor first. */
    @Override
    public int[] nodes() {
        return nodes.clone();
    }

    /**
     * The record's own array, not a copy: for {@link WeightedPick}'s hot path in this package only.
     * Callers must not modify it.
     */
    int[] sharedNodes() {
        return nodes;
    }

    /** Number of candidates. */
    public int size() {
        return nodes.length;
    }

    /** The candidate at {@code position} (0 = anchor). */
    public int node(int position) {
        return nodes[position];
    }

    /** The anchor: the first node met clockwise from the slot's point when the set was built. */
    public int anchor() {
        return nodes[0];
    }

    /** True when {@code node} is one of the candidates. */
    public boolean contains(int node) {
        return positionOf(node) >= 0;
    }

    /** Position of {@code node} in the set, or -1. */
    public int positionOf(int node) {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == node) {
                return i;
            }
        }
        return -1;
    }

    /**
     * This set with {@code source} replaced by {@code target} at the same position (so replacing the
     * anchor makes {@code target} the anchor): the effect of a committed migration.
     */
    public CandidateSet replace(int source, int target) {
        int position = positionOf(source);
        if (position < 0) {
            throw new IllegalArgumentException(
                    "node " + source + " is not in candidate set " + Arrays.toString(nodes));
        }
        if (contains(target)) {
            throw new IllegalArgumentException(
                    "node " + target + " is already in candidate set " + Arrays.toString(nodes));
        }
        int[] replaced = nodes.clone();
        replaced[position] = target;
        return new CandidateSet(replaced);
    }

    /** The node ids of this set, anchor first. */
    public List<String> ids(NodeIndex index) {
        List<String> ids = new ArrayList<>(nodes.length);
        for (int node : nodes) {
            ids.add(index.id(node));
        }
        return List.copyOf(ids);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CandidateSet other && Arrays.equals(nodes, other.nodes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nodes);
    }

    @Override
    public String toString() {
        return "CandidateSet" + Arrays.toString(nodes);
    }
}
