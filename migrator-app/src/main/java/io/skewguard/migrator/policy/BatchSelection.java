package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The per-node serial queue: from a plan, in plan order, the moves that can run together — no node
 * twice (as source or target), no slot twice (one in-flight target per slot row), at most
 * {@code maxParallel}. A node that has a move as the source earlier in the plan that does not start
 * now takes no move as the target in this batch: it gives before it takes (a node that must make room
 * for a relocated shard, and the node the shard leaves, are filled only once the shard is gone;
 * docs/design.md §8). The rest waits for the next plan.
 */
public final class BatchSelection {

    private BatchSelection() {}

    public static List<Move> select(List<Move> plan, int maxParallel) {
        if (maxParallel < 1) {
            throw new IllegalArgumentException("maxParallel must be >= 1, was " + maxParallel);
        }
        return select(plan, maxParallel, Set.of(), Set.of());
    }

    /**
     * As {@link #select(List, int)}, next to migrations already running (copies carried from the
     * previous batch): their nodes and slots are taken, and {@code free} moves at most are added
     * (0: none).
     */
    public static List<Move> select(List<Move> plan, int free, Set<String> busyNodes, Set<Integer> busySlots) {
        if (free < 0) {
            throw new IllegalArgumentException("free must be >= 0, was " + free);
        }
        int maxParallel = free;
        Set<String> busy = new HashSet<>(busyNodes);
        Set<Integer> slots = new HashSet<>(busySlots);
        Set<String> stillToGive = new HashSet<>();
        List<Move> batch = new ArrayList<>();
        for (Move move : plan) {
            if (batch.size() == maxParallel) {
                break;
            }
            if (busy.contains(move.source()) || busy.contains(move.target()) || slots.contains(move.slot())
                    || stillToGive.contains(move.target())) {
                stillToGive.add(move.source());
                continue;
            }
            busy.add(move.source());
            busy.add(move.target());
            slots.add(move.slot());
            batch.add(move);
        }
        return batch;
    }
}
