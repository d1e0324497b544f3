package io.skewguard.sim.scenario;

/** Something that happens to the cluster at a point of simulated time. */
public sealed interface ScenarioEvent {

    /** Simulated time of the event, milliseconds from the start. */
    long atMillis();

    /** The event's name in the scenario file ({@code event.<name>.*}). */
    String name();

    /** A new, empty node joins: on the ring, in no candidate set until a migration targets it. */
    record Join(String name, long atMillis, NodeSpec node) implements ScenarioEvent {}

    /**
     * A node is lost: its shards are rebuilt from replicas on the node that replaces it in each
     * candidate set (the next distinct node clockwise on the ring without it).
     */
    record Loss(String name, long atMillis, String node) implements ScenarioEvent {}

    /**
     * An operator drains a node, as {@code skewguard node drain <node>} does: the node stops taking new
     * writes, the migrator moves every shard it holds away, takes it out of every candidate set and
     * records it as drained. With {@code cancelAtMillis} (else -1) the operator cancels the drain then,
     * as {@code skewguard node drain <node> --cancel} does.
     */
    record Drain(String name, long atMillis, String node, long cancelAtMillis) implements ScenarioEvent {

        /** Whether the drain is cancelled during the scenario. */
        public boolean cancelled() {
            return cancelAtMillis >= 0;
        }
    }

    /**
     * One shard's write rate is multiplied by {@code factor} from {@code atMillis} on; its extra writes
     * come from {@code keys} distinct keys of the slot.
     */
    record HotSpot(String name, long atMillis, HotSlot slot, double factor, int keys) implements ScenarioEvent {

        /** How many keys carry a hot spot's extra writes unless the scenario says ({@code event.<name>.keys}). */
        public static final int DEFAULT_KEYS = 32;

        /** The most keys a hot spot may have (the parser refuses more): finding each takes thousands of hashes at its start. */
        public static final int MAX_KEYS = 4096;
    }

    /** Which slot a hot spot hits: a fixed slot, or the slot that is hottest when it starts. */
    record HotSlot(int slot) {
        /** The slot with the highest write share at the time of the event. */
        public static final HotSlot HOTTEST = new HotSlot(-1);

        public boolean hottest() {
            return slot < 0;
        }
    }
}
