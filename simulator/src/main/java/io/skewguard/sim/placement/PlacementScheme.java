package io.skewguard.sim.placement;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;

import java.util.List;

/**
 * A way to place a key (by its 64-bit hash) on one of a set of nodes. The three schemes the
 * placement simulator compares are siblings of this interface.
 */
sealed interface PlacementScheme {

    /** Short name for the table. */
    String name();

    /** A placement over {@code nodeIds}; the returned function maps a key hash to a node id's index in {@code nodeIds}. */
    Placement over(List<String> nodeIds);

    /** Placement over one fixed node set. */
    interface Placement {
        /** Index into the node list of the node that holds the key with hash {@code keyHash}. */
        int nodeOf(long keyHash);
    }

    /** {@code hash mod N}: perfectly even, but a change of N remaps almost every key. */
    record ModN() implements PlacementScheme {
        @Override
        public String name() {
            return "hash mod N";
        }

        @Override
        public Placement over(List<String> nodeIds) {
            int n = nodeIds.size();
            return keyHash -> (int) Long.remainderUnsigned(keyHash, n);
        }
    }

    /** A consistent-hash ring with {@code vnodes} points per node (1 = the bare ring). */
    record Ring(int vnodes) implements PlacementScheme {
        public Ring {
            if (vnodes < 1) {
                throw new IllegalArgumentException("virtual nodes per node must be at least 1, but is " + vnodes);
            }
        }

        @Override
        public String name() {
            return vnodes == 1 ? "bare ring (1 point/node)" : "ring, " + vnodes + " vnodes/node";
        }

        @Override
        public Placement over(List<String> nodeIds) {
            HashRing ring = HashRing.of(nodeIds.stream().map(Node::of).toList(), vnodes);
            // ring indexes follow the given order, so they are indexes into nodeIds
            return ring::lookup;
        }
    }
}
