package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The migration planner of docs/design.md §8: overloaded nodes give up their coldest shards to
 * the emptiest eligible node until the projected capacity CV is at or below the target.
 *
 * <p>With {@code u* = Σused / Σtotal} the target utilisation and {@code excess(n) = used(n) − u*·total(n)}:
 *
 * <ol>
 *   <li>Sources are the nodes with {@code excess > 0}; targets are the others. A source may give
 *       away at most {@code (1 + overshoot) × excess} bytes (overshoot 0.2 by default, so one shard
 *       that does not divide the excess evenly can still go), which bounds the total moved by
 *       {@code (1 + overshoot) × Σ positive excess}.
 *   <li>While the projected CV is above the target: take the source with the highest projected
 *       utilisation; walk its shards coldest first (heat ascending, then slot); the first shard that
 *       fits the source's remaining allowance and has an eligible target moves to the emptiest
 *       eligible target (lowest projected utilisation, then node id) — provided the move lowers the
 *       projected CV. A source with no such shard is done.
 *   <li>Eligible target of shard (s, n): not n, not already in slot s's (projected) candidate set,
 *       and the move keeps the number of distinct known racks of the candidate set (a target on a
 *       rack already used by another candidate may only replace a source on such a rack too).
 * </ol>
 *
 * <p>Draining nodes ({@link ClusterSnapshot#draining()}) are sources of every shard they hold with
 * bytes, coldest first, each to the emptiest eligible target, before anything else and whatever the
 * CV or the overshoot say; they are never targets, and the CV (and {@code u*}, whose denominator is
 * the other nodes' total) is that of the other nodes, which will hold the data.
 *
 * <p>Excluded nodes ({@link ClusterSnapshot#excluded()}: an operator's {@code ctl exclude}) are neither
 * sources nor targets, drained shards included; their bytes stay where they are and count in the CV
 * and in {@code u*} like any other node's.
 *
 * <p>Cost: each step either moves one shard or retires one source; a step costs
 * O(N + shards(source) × N) in the worst case, O(N) typically (the first shard finds a target), on
 * primitive arrays. The projected CV is kept incrementally from Σu and Σu². Deterministic: every tie
 * is broken by node id, then slot.
 */
public final class ColdestFirstPlanner implements MigrationPlanner {

    /** The planner's default target CV (docs/design.md §8). */
    public static final double DEFAULT_TARGET_CV = 0.10;

    /** Default share of a source's excess it may overshoot by. */
    public static final double DEFAULT_OVERSHOOT = 0.2;

    private static final double EPSILON = 1e-12;

    private final double targetCv;
    private final double overshoot;

    public ColdestFirstPlanner() {
        this(DEFAULT_TARGET_CV, DEFAULT_OVERSHOOT);
    }

    public ColdestFirstPlanner(double targetCv, double overshoot) {
        if (!(targetCv >= 0) || Double.isInfinite(targetCv)) {
            throw new IllegalArgumentException("targetCv must be a finite number >= 0, was " + targetCv);
        }
        if (!(overshoot >= 0 && overshoot <= 1)) {
            throw new IllegalArgumentException("overshoot must be in [0, 1], was " + overshoot);
        }
        this.targetCv = targetCv;
        this.overshoot = overshoot;
    }

    public double targetCv() {
        return targetCv;
    }

    @Override
    public MigrationPlan plan(ClusterSnapshot snapshot) {
        return new Run(snapshot).plan();
    }

    /** One planning run's working arrays. */
    private final class Run {
        private final int n;
        private final String[] ids;
        private final double[] used;
        private final double[] total;
        private final int[] rack;
        private final boolean[] draining;
        private final boolean[] excluded;
        private final int active; // nodes that are not draining: the CV is theirs
        private final double targetU;
        private final boolean[] isSource;
        private final double[] allowance;
        private final int[][] shardsByNode; // shard indices per node, coldest first
        private final int[] shardSlot;
        private final long[] shardBytes;
        private final boolean[] shardMoved;
        private final Map<Integer, int[]> candidates = new HashMap<>();
        private final int[] targetsByU; // target node indices, ascending projected utilisation
        private double sumU;
        private double sumU2;

        Run(ClusterSnapshot snapshot) {
            List<NodeCapacity> nodes = new ArrayList<>(snapshot.nodes());
            nodes.sort((a, b) -> a.node().compareTo(b.node()));
            n = nodes.size();
            ids = new String[n];
            used = new double[n];
            total = new double[n];
            rack = new int[n];
            draining = new boolean[n];
            excluded = new boolean[n];
            Map<String, Integer> index = new HashMap<>();
            Map<String, Integer> racks = new HashMap<>();
            for (int i = 0; i < n; i++) {
                NodeCapacity c = nodes.get(i);
                ids[i] = c.node();
                used[i] = c.usedBytes();
                total[i] = c.totalBytes();
                rack[i] = c.rack() == null ? -1 : racks.computeIfAbsent(c.rack(), r -> racks.size());
                index.put(c.node(), i);
                excluded[i] = snapshot.excluded().contains(c.node());
                draining[i] = snapshot.draining().contains(c.node()) && !excluded[i];
            }
            double usedAll = 0;
            double totalActive = 0;
            int activeCount = 0;
            for (int i = 0; i < n; i++) {
                usedAll += used[i];
                if (!draining[i]) {
                    totalActive += total[i];
                    activeCount++;
                }
            }
            active = activeCount;
            targetU = totalActive == 0 ? 0.0 : usedAll / totalActive;
            isSource = new boolean[n];
            allowance = new double[n];
            int targets = 0;
            for (int i = 0; i < n; i++) {
                if (draining[i]) {
                    isSource[i] = true;
                    allowance[i] = Double.POSITIVE_INFINITY;
                    continue; // outside the CV: its whole content goes
                }
                double excess = used[i] - targetU * total[i];
                if (excluded[i]) {
                    continue; // neither source nor target; in the CV as it is
                }
                if (excess > EPSILON * total[i]) {
                    isSource[i] = true;
                    allowance[i] = (1 + overshoot) * excess;
                } else {
                    targets++;
                }
            }
            for (int i = 0; i < n; i++) {
                if (!draining[i]) {
                    double u = used[i] / total[i];
                    sumU += u;
                    sumU2 += u * u;
                }
            }
            targetsByU = new int[targets];
            int t = 0;
            for (int i = 0; i < n; i++) {
                if (!isSource[i] && !excluded[i]) {
                    targetsByU[t++] = i;
                }
            }
            sortTargets();

            snapshot.candidateSets().forEach((slot, set) -> {
                int[] members = new int[set.size()];
                for (int k = 0; k < members.length; k++) {
                    Integer member = index.get(set.get(k));
                    members[k] = member == null ? -1 : member; // a node without capacity figures
                }
                candidates.put(slot, members);
            });

            List<ShardLoad> shards = snapshot.shards();
            shardSlot = new int[shards.size()];
            shardBytes = new long[shards.size()];
            shardMoved = new boolean[shards.size()];
            long[] heat = new long[shards.size()];
            List<List<Integer>> perNode = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                perNode.add(new ArrayList<>());
            }
            for (int s = 0; s < shards.size(); s++) {
                ShardLoad shard = shards.get(s);
                shardSlot[s] = shard.slot();
                shardBytes[s] = shard.bytes();
                heat[s] = shard.heat();
                perNode.get(index.get(shard.node())).add(s);
            }
            shardsByNode = new int[n][];
            for (int i = 0; i < n; i++) {
                List<Integer> list = perNode.get(i);
                list.sort((a, b) -> heat[a] != heat[b] ? Long.compare(heat[a], heat[b]) : Integer.compare(shardSlot[a], shardSlot[b]));
                shardsByNode[i] = list.stream().mapToInt(Integer::intValue).toArray();
            }
        }

        MigrationPlan plan() {
            double initialCv = cv();
            boolean drainLeft = false;
            for (int i = 0; i < n; i++) {
                for (int shard : draining[i] ? shardsByNode[i] : new int[0]) {
                    drainLeft |= shardBytes[shard] > 0;
                }
            }
            if (initialCv <= targetCv && !drainLeft) {
                return new MigrationPlan(List.of(), initialCv, initialCv, targetCv, MigrationPlan.Outcome.BALANCED);
            }
            List<Move> moves = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (draining[i]) {
                    drain(i, moves);
                }
            }
            boolean[] retired = new boolean[n];
            double cv = cv();
            while (cv > targetCv) {
                int source = fullestSource(retired);
                if (source < 0) {
                    break;
                }
                double next = moveOneShard(source, cv, moves);
                if (Double.isNaN(next)) {
                    retired[source] = true;
                } else {
                    cv = next;
                }
            }
            double projected = exactCv();
            MigrationPlan.Outcome outcome =
                    projected <= targetCv ? MigrationPlan.Outcome.REACHES_TARGET : MigrationPlan.Outcome.NO_IMPROVING_MOVE;
            return new MigrationPlan(moves, initialCv, projected, targetCv, outcome);
        }

        /** Every shard of draining node {@code source} with bytes, coldest first, to the emptiest eligible target. */
        private void drain(int source, List<Move> moves) {
            for (int shard : shardsByNode[source]) {
                if (shardBytes[shard] == 0) {
                    continue;
                }
                int slot = shardSlot[shard];
                int[] set = candidates.get(slot);
                int target = emptiestForDrain(set, source);
                if (target < 0) {
                    continue; // no node may take it now; a later plan tries again
                }
                long bytes = shardBytes[shard];
                apply(source, target, bytes);
                shardMoved[shard] = true;
                for (int k = 0; k < set.length; k++) {
                    if (set[k] == source) {
                        set[k] = target;
                    }
                }
                moves.add(new Move(slot, ids[source], ids[target], bytes));
            }
        }

        private int fullestSource(boolean[] retired) {
            int best = -1;
            double bestU = targetU;
            for (int i = 0; i < n; i++) {
                if (isSource[i] && !retired[i] && !draining[i]) {
                    double u = used[i] / total[i];
                    if (u > bestU + EPSILON) {
                        best = i;
                        bestU = u;
                    }
                }
            }
            return best;
        }

        /** Moves the coldest movable shard of {@code source}; returns the new CV, or NaN if none moves. */
        private double moveOneShard(int source, double cv, List<Move> moves) {
            for (int shard : shardsByNode[source]) {
                if (shardMoved[shard] || shardBytes[shard] == 0 || shardBytes[shard] > allowance[source] + EPSILON) {
                    continue;
                }
                int slot = shardSlot[shard];
                int[] set = candidates.get(slot);
                int target = emptiestEligible(set, source);
                if (target < 0) {
                    continue;
                }
                long bytes = shardBytes[shard];
                double next = cvAfter(source, target, bytes);
                if (next >= cv - EPSILON) {
                    continue;
                }
                apply(source, target, bytes);
                allowance[source] -= bytes;
                shardMoved[shard] = true;
                for (int k = 0; k < set.length; k++) {
                    if (set[k] == source) {
                        set[k] = target;
                    }
                }
                moves.add(new Move(slot, ids[source], ids[target], bytes));
                return next;
            }
            return Double.NaN;
        }

        /** Any node that is not draining may take a drained shard (sources too: the drain comes first). */
        private int emptiestForDrain(int[] set, int source) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (!draining[i] && !excluded[i] && eligible(set, source, i) && (best < 0 || before(i, best))) {
                    best = i;
                }
            }
            return best;
        }

        private int emptiestEligible(int[] set, int source) {
            for (int target : targetsByU) {
                if (eligible(set, source, target)) {
                    return target;
                }
            }
            return -1;
        }

        private boolean eligible(int[] set, int source, int target) {
            boolean targetRackTaken = false;
            boolean sourceRackShared = false;
            for (int member : set) {
                if (member == target) {
                    return false;
                }
                if (member == source || member < 0) {
                    continue;
                }
                if (rack[target] >= 0 && rack[member] == rack[target]) {
                    targetRackTaken = true;
                }
                if (rack[source] >= 0 && rack[member] == rack[source]) {
                    sourceRackShared = true;
                }
            }
            // the set keeps its number of distinct known racks unless the target's rack is already
            // there while the source's rack was its only occurrence (or the source's rack is unknown
            // and the target adds none — harmless, the count stays)
            return !targetRackTaken || sourceRackShared || rack[source] < 0;
        }

        private double cvAfter(int source, int target, long bytes) {
            if (draining[source]) {
                double ut = used[target] / total[target];
                double ut2 = (used[target] + bytes) / total[target];
                return cvOf(sumU - ut + ut2, sumU2 - ut * ut + ut2 * ut2);
            }
            double us = used[source] / total[source];
            double ut = used[target] / total[target];
            double us2 = (used[source] - bytes) / total[source];
            double ut2 = (used[target] + bytes) / total[target];
            double s = sumU - us - ut + us2 + ut2;
            double s2 = sumU2 - us * us - ut * ut + us2 * us2 + ut2 * ut2;
            return cvOf(s, s2);
        }

        private void apply(int source, int target, long bytes) {
            double us = used[source] / total[source];
            double ut = used[target] / total[target];
            used[source] -= bytes;
            used[target] += bytes;
            double us2 = used[source] / total[source];
            double ut2 = used[target] / total[target];
            if (draining[source]) {
                us = 0;
                us2 = 0; // outside the CV
            }
            sumU += us2 + ut2 - us - ut;
            sumU2 += us2 * us2 + ut2 * ut2 - us * us - ut * ut;
            reposition(target);
        }

        /** The target's utilisation only grew: slide it right to its sorted place. */
        private void reposition(int target) {
            if (isSource[target] || excluded[target]) {
                return; // a source that took a drained shard: not in the target list
            }
            int pos = 0;
            while (targetsByU[pos] != target) {
                pos++;
            }
            while (pos + 1 < targetsByU.length && before(targetsByU[pos + 1], target)) {
                targetsByU[pos] = targetsByU[pos + 1];
                pos++;
            }
            targetsByU[pos] = target;
        }

        private void sortTargets() {
            Integer[] boxed = Arrays.stream(targetsByU).boxed().toArray(Integer[]::new);
            Arrays.sort(boxed, (a, b) -> before(a, b) ? -1 : before(b, a) ? 1 : 0);
            for (int i = 0; i < boxed.length; i++) {
                targetsByU[i] = boxed[i];
            }
        }

        private boolean before(int a, int b) {
            double ua = used[a] / total[a];
            double ub = used[b] / total[b];
            return ua < ub || (ua == ub && a < b);
        }

        private double cv() {
            return cvOf(sumU, sumU2);
        }

        private double cvOf(double s, double s2) {
            if (active == 0) {
                return 0.0;
            }
            double mean = s / active;
            if (mean <= 0) {
                return 0.0;
            }
            double variance = Math.max(0.0, s2 / active - mean * mean);
            return Math.sqrt(variance) / mean;
        }

        private double exactCv() {
            double[] u = new double[active];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (!draining[i]) {
                    u[k++] = used[i] / total[i];
                }
            }
            return io.skewguard.core.stats.CoefficientOfVariation.of(u);
        }
    }
}
