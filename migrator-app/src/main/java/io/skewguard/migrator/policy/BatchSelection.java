package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The per-node serial queue: from a plan, in plan order, the moves that can run together — no node
 * twice (as source or target), no slot twice (one in-flight target per slot row), at most
 * {@code maxParallel}. The rest waits for the next plan.
 */
public final class BatchSelection {

    private BatchSelection() {}

    public static List<Move> select(List<Move> plan, int maxParallel) {
        if (maxParallel < 1) {
            throw new IllegalArgumentException("maxParallel must be >= 1, was " + maxParallel);
        }
        Set<String> busy = new HashSet<>();
        Set<Integer> slots = new HashSet<>();
        List<Move> batch = new ArrayList<>();
        for (Move move : plan) {
            if (batch.size() == maxParallel) {
                break;
            }
            if (busy.contains(move.source()) || busy.contains(move.target()) || slots.contains(move.slot())) {
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
