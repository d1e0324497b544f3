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
 *       rack already used by another candidate may only replace a source on such a rack too); and it
 *       has room: its projected used bytes plus the shard's stay within its total (drains too).
 * </ol>
 *
 * <p>Draining nodes ({@link ClusterSnapshot#draining()}) are sources of every shard they hold with
 * bytes, coldest first, each to the emptiest eligible target, before anything else and whatever the
 * CV or the overshoot say; they are never targets, and the CV (and {@code u*}, whose denominator is
 * the other nodes' total) is that of the other nodes, which will hold the data.
 *
 * <p><b>Relocations.</b> A plan can stop above the target held there by <em>blocking</em> shards: a
 * node's largest shard that alone holds the node above {@code u*}, so no move of its other shards brings
 * it to the mean (a slot of old heat whose shard grew to most of a node). Whenever the plain plan stops
 * above the target with such a shard, the planner makes a second plan that first relocates blocking
 * shards, worst first: at most {@link #RELOCATIONS_BESIDE_PLAIN_MOVES} while the plain plan still has
 * moves, at most {@link #RELOCATIONS_PER_PLAN} once it has none. Each goes to one of the
 * {@link #RELOCATION_TRIES} largest eligible nodes where its excess over {@code u*} would be at most
 * {@link #RELOCATION_EXCESS_KEPT} of its excess where it is, the first of them that can make room — it
 * gives its own shards, each to the emptiest eligible node that stays at or under
 * {@code u* × (1 + targetCv / 2)}, aiming at {@code max(u*, shard ÷ total)} with the shard and needing
 * at most that limit — the largest that fit in the room still to make first (the fewest serial
 * copies), then the rest coldest first; then it plans the rest as above from the cluster those moves leave (the node the
 * shard left is now a target). The second plan is taken if its projected CV is lower by
 * {@link #MIN_RELOCATION_GAIN}.
 *
 * <p>A relocation is a chain of serial copies on two nodes (the target gives its shards one at a time,
 * the shard moves, the node it left is filled one shard at a time) that takes a day or more at scale.
 * A few chains therefore start beside the plain moves, from the repair's first plan, instead of after
 * them; only a few, because each takes a large node out of the plain moves' targets and its copies share
 * the budget with theirs. Plans are made afresh after each batch, from the cluster the last one left:
 * the next plan names the same worst blockers and the same largest nodes, so a chain goes on where it
 * stands, and the room its target has made is not taken back by plain moves, which would happen if
 * relocations waited for a plan without plain moves (the first batch of room-making makes a node
 * under the mean, which the next plain plan fills again). Order: the moves that touch no relocation's
 * nodes or slots, then each relocation after the moves that make its room, then the moves that fill
 * the nodes the shards left; {@link BatchSelection} runs a node's giving before its taking.
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

    /**
     * A blocking shard is relocated only to a node where its excess over {@code u*} (its weight there,
     * shard ÷ total, less {@code u*}) is at most this share of its excess where it is: a 90 TB shard is
     * not moved to gain a few points of utilisation.
     */
    static final double RELOCATION_EXCESS_KEPT = 0.75;

    /** How many of the largest eligible nodes a blocking shard tries, in turn, to make room for it. */
    static final int RELOCATION_TRIES = 8;

    /**
     * At most this many relocations in a plan whose plain part still has moves: the chains that run
     * beside the plain moves from the repair's first plan. With none (relocations only once the plain
     * moves are done), {@code scale-512} had no relocation done by its day 10 in model mode
     * (docs/simulator.md).
     */
    static final int RELOCATIONS_BESIDE_PLAIN_MOVES = 2;

    /**
     * At most this many relocations per plan once its plain part has no move, worst blocker first. A
     * relocation's copies are long (the shard, then the room it needs and the refill of the node it
     * leaves); a few at a time keep the rest of the plan — the moves that lower the CV most per byte —
     * running beside them, and the next plan, made from the cluster these leave, takes the next ones.
     */
    static final int RELOCATIONS_PER_PLAN = 8;

    /** The projected CV a plan with relocations must gain over the plan without them to be chosen. */
    static final double MIN_RELOCATION_GAIN = 0.001;

    private final double targetCv;
    private final double overshoot;
    private final boolean relocate;

    public ColdestFirstPlanner() {
        this(DEFAULT_TARGET_CV, DEFAULT_OVERSHOOT);
    }

    /** A planner that relocates blocking shards when its plain plan stops above the target. */
    public ColdestFirstPlanner(double targetCv, double overshoot) {
        this(targetCv, overshoot, true);
    }

    /** A planner that relocates blocking shards, or never does ({@code relocate} false: the plain plan only). */
    public ColdestFirstPlanner(double targetCv, double overshoot, boolean relocate) {
        if (!(targetCv >= 0) || Double.isInfinite(targetCv)) {
            throw new IllegalArgumentException("targetCv must be a finite number >= 0, was " + targetCv);
        }
        if (!(overshoot >= 0 && overshoot <= 1)) {
            throw new IllegalArgumentException("overshoot must be in [0, 1], was " + overshoot);
        }
        this.targetCv = targetCv;
        this.overshoot = overshoot;
        this.relocate = relocate;
    }

    public double targetCv() {
        return targetCv;
    }

    @Override
    public MigrationPlan plan(ClusterSnapshot snapshot) {
        Run plain = new Run(snapshot);
        MigrationPlan plan = plain.plan(0);
        if (!relocate || plan.outcome() != MigrationPlan.Outcome.NO_IMPROVING_MOVE || !plain.hasBlocker()) {
            return plan;
        }
        MigrationPlan relocating = new Run(snapshot).plan(plan.moves().isEmpty() ? RELOCATIONS_PER_PLAN : RELOCATIONS_BESIDE_PLAIN_MOVES);
        return relocating.projectedCv() < plan.projectedCv() - MIN_RELOCATION_GAIN ? relocating : plan;
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
        private boolean[] isSource;
        private double[] allowance;
        private final int[][] shardsByNode; // shard indices per node, coldest first
        private final int[] shardSlot;
        private final long[] shardBytes;
        private final boolean[] shardMoved;
        private final Map<Integer, int[]> candidates = new HashMap<>();
        private int[] targetsByU; // target node indices, ascending projected utilisation
        private final int rackCount; // distinct known racks
        private boolean[] mayTake; // scratch of mayTake()
        private boolean[] rackInSet; // scratch of mayTake()
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
            rackCount = racks.size();
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
            classify();
            for (int i = 0; i < n; i++) {
                if (!draining[i]) {
                    double u = used[i] / total[i];
                    sumU += u;
                    sumU2 += u * u;
                }
            }

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

        /** Sources (excess over {@code u*}, and draining nodes), their allowances, and the targets by utilisation. */
        private void classify() {
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
            targetsByU = new int[targets];
            int t = 0;
            for (int i = 0; i < n; i++) {
                if (!isSource[i] && !excluded[i]) {
                    targetsByU[t++] = i;
                }
            }
            sortTargets();
        }

        /** The plan, relocating at most {@code relocations} blocking shards first (0: the plain plan). */
        MigrationPlan plan(int relocations) {
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
            int chainStart = moves.size();
            boolean[] relocating = new boolean[n];
            if (relocations > 0) {
                relocateBlockers(moves, relocating, relocations);
                classify(); // sources, allowances and targets of the cluster the relocations leave
            }
            int chainEnd = moves.size();
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
            return new MigrationPlan(relocationsAfterTheRest(moves, chainStart, chainEnd, relocating), initialCv, projected, targetCv,
                    outcome);
        }

        /**
         * Plan order for a plan with relocations: the drains; then the later moves that touch no node of a
         * relocation (neither the node a shard leaves nor the one it goes to) and no slot a relocation's
         * moves touch — they lower the CV most per byte and run first; then the relocations, each with
         * the moves that make its room first; then the moves that fill or empty their nodes.
         */
        private List<Move> relocationsAfterTheRest(List<Move> moves, int chainStart, int chainEnd, boolean[] relocating) {
            if (chainEnd == chainStart) {
                return moves;
            }
            java.util.Set<Integer> chainSlots = new java.util.HashSet<>();
            java.util.Set<String> chainNodes = new java.util.HashSet<>();
            for (int i = 0; i < n; i++) {
                if (relocating[i]) {
                    chainNodes.add(ids[i]);
                }
            }
            for (Move m : moves.subList(chainStart, chainEnd)) {
                chainSlots.add(m.slot());
            }
            List<Move> ordered = new ArrayList<>(moves.subList(0, chainStart));
            List<Move> late = new ArrayList<>();
            for (Move m : moves.subList(chainEnd, moves.size())) {
                boolean touches = chainSlots.contains(m.slot()) || chainNodes.contains(m.source()) || chainNodes.contains(m.target());
                (touches ? late : ordered).add(m);
            }
            ordered.addAll(moves.subList(chainStart, chainEnd));
            ordered.addAll(late);
            return ordered;
        }

        /** Every shard of draining node {@code source} with bytes, coldest first, to the emptiest eligible target. */
        private void drain(int source, List<Move> moves) {
            for (int shard : shardsByNode[source]) {
                if (shardBytes[shard] == 0) {
                    continue;
                }
                int slot = shardSlot[shard];
                int[] set = candidates.get(slot);
                int target = emptiestForDrain(set, source, shardBytes[shard]);
                if (target < 0) {
                    continue; // no node may take it now; a later plan tries again
                }
                moveShard(shard, source, target, set, moves);
            }
        }

        /**
         * The largest shard with bytes of node {@code i} if that shard alone holds the node above
         * {@code u*} (no plan that keeps it there brings the node to the mean), else -1.
         */
        private int blockingShard(int i) {
            if (draining[i] || excluded[i]) {
                return -1;
            }
            int largest = -1;
            for (int shard : shardsByNode[i]) {
                if (!shardMoved[shard] && shardBytes[shard] > 0 && (largest < 0 || shardBytes[shard] > shardBytes[largest])) {
                    largest = shard;
                }
            }
            return largest >= 0 && shardBytes[largest] / total[i] > targetU + EPSILON ? largest : -1;
        }

        /** Whether some node holds a shard that alone keeps it above {@code u*}. */
        boolean hasBlocker() {
            for (int i = 0; i < n; i++) {
                if (blockingShard(i) >= 0) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Relocations (docs/design.md §8.2), worst blocker first, at most {@code maxRelocations}:
         * a blocking shard may go to an eligible node where its excess over {@code u*} is at most
         * {@link #RELOCATION_EXCESS_KEPT} of its excess where it is; the {@link #RELOCATION_TRIES} largest
         * such nodes try in turn to make room for it ({@link #makeRoom}), and the first that can takes it.
         * The node the shard leaves is then a target like any other. A node gives or takes at most one
         * relocated shard per plan; {@code relocating} marks both nodes of each relocation.
         */
        private void relocateBlockers(List<Move> moves, boolean[] relocating, int maxRelocations) {
            List<int[]> blockers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int shard = blockingShard(i);
                if (shard >= 0) {
                    blockers.add(new int[] {i, shard});
                }
            }
            blockers.sort((x, y) -> {
                int c = Double.compare(shardBytes[y[1]] / total[y[0]], shardBytes[x[1]] / total[x[0]]);
                return c != 0 ? c : Integer.compare(x[0], y[0]);
            });
            boolean[] taken = new boolean[n];
            int relocated = 0;
            for (int[] blocker : blockers) {
                if (relocated == maxRelocations) {
                    break;
                }
                int source = blocker[0];
                int shard = blocker[1];
                if (taken[source] || shardMoved[shard]) {
                    continue;
                }
                long bytes = shardBytes[shard];
                int[] set = candidates.get(shardSlot[shard]);
                // where it may go: its weight there at most `limit`, lightest (largest node) first
                double limit = targetU + RELOCATION_EXCESS_KEPT * (bytes / total[source] - targetU);
                boolean[] mayTake = mayTake(set, source);
                List<Integer> options = new ArrayList<>();
                for (int t = 0; t < n; t++) {
                    if (t != source && !taken[t] && !draining[t] && !excluded[t] && mayTake[t] && bytes / total[t] <= limit + EPSILON) {
                        options.add(t);
                    }
                }
                options.sort((x, y) -> total[x] != total[y] ? Double.compare(total[y], total[x]) : before(x, y) ? -1 : before(y, x) ? 1 : 0);
                int target = -1;
                for (int k = 0; k < Math.min(RELOCATION_TRIES, options.size()) && target < 0; k++) {
                    if (makeRoom(options.get(k), source, bytes, limit, moves)) {
                        target = options.get(k);
                    }
                }
                if (target < 0) {
                    continue; // no node can make room for it
                }
                moveShard(shard, source, target, set, moves);
                taken[source] = true;
                taken[target] = true;
                relocating[source] = true;
                relocating[target] = true;
                relocated++;
            }
        }

        /**
         * Node {@code target} gives its shards, each to the emptiest node that may take it
         * ({@link #emptiestUnderMean}), until it would sit at {@code max(u*, bytes ÷ its total)} with the
         * relocated shard: first the largest that fit in the room still to make (ties coldest first),
         * then, if that is not enough, the rest coldest first; a shard no node can take is passed over.
         * The largest first because a node gives one shard per batch: the fewer shards its room takes,
         * the sooner the relocated shard can follow. True if it then sits at or under {@code limit} with
         * the shard; otherwise its moves are undone.
         */
        private boolean makeRoom(int target, int source, long bytes, double limit, List<Move> moves) {
            int mark = moves.size();
            List<int[]> undo = new ArrayList<>();
            double toShed = used[target] + bytes - Math.max(targetU, bytes / total[target]) * total[target];
            toShed = give(target, source, largestFirst(shardsByNode[target]), true, toShed, moves, undo);
            give(target, source, shardsByNode[target], false, toShed, moves, undo);
            if (used[target] + bytes <= limit * total[target] + EPSILON * total[target]) {
                return true;
            }
            for (int k = undo.size() - 1; k >= 0; k--) {
                int[] u = undo.get(k);
                apply(u[2], u[1], shardBytes[u[0]]);
                shardMoved[u[0]] = false;
                candidates.get(shardSlot[u[0]])[u[3]] = u[1];
            }
            moves.subList(mark, moves.size()).clear();
            return false;
        }

        /**
         * {@link #makeRoom}'s giving: {@code target}'s shards in {@code order}, each to the emptiest node
         * that may take it, until {@code toShed} bytes are given; with {@code onlyFitting}, only shards no
         * larger than what is still to give. Returns what is still to give.
         */
        private double give(int target, int source, int[] order, boolean onlyFitting, double toShed, List<Move> moves,
                List<int[]> undo) {
            for (int give : order) {
                if (toShed <= EPSILON * total[target]) {
                    break;
                }
                if (shardMoved[give] || shardBytes[give] == 0 || onlyFitting && shardBytes[give] > toShed) {
                    continue;
                }
                int[] giveSet = candidates.get(shardSlot[give]);
                int to = emptiestUnderMean(giveSet, target, source, shardBytes[give]);
                if (to < 0) {
                    continue;
                }
                undo.add(new int[] {give, target, to, moveShard(give, target, to, giveSet, moves)});
                toShed -= shardBytes[give];
            }
            return toShed;
        }

        /** {@code shards} (coldest first) by bytes, largest first; equal bytes keep their order. */
        private int[] largestFirst(int[] shards) {
            Integer[] boxed = Arrays.stream(shards).boxed().toArray(Integer[]::new);
            Arrays.sort(boxed, (a, b) -> Long.compare(shardBytes[b], shardBytes[a])); // stable
            return Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
        }

        /**
         * The emptiest node that may take a shard of {@code set} from {@code source} and stay at or under
         * {@code u* × (1 + targetCv / 2)}: well inside the target's band, so that room is found where the
         * plain plans have brought every node near the mean; the nodes a little over it give to the
         * emptied node afterwards.
         */
        private int emptiestUnderMean(int[] set, int source, int not, long bytes) {
            int best = -1;
            boolean[] mayTake = mayTake(set, source);
            double limit = targetU * (1 + targetCv / 2);
            for (int i = 0; i < n; i++) {
                if (i == not || draining[i] || excluded[i] || (used[i] + bytes) > limit * total[i] + EPSILON * total[i]
                        || !mayTake[i]) {
                    continue;
                }
                if (best < 0 || before(i, best)) {
                    best = i;
                }
            }
            return best;
        }

        /**
         * {@link #eligible} for every node at once, in O(n + m): the set's members and the racks of its
         * members other than {@code source} are marked once. The array is reused by the next call.
         */
        private boolean[] mayTake(int[] set, int source) {
            if (mayTake == null) {
                mayTake = new boolean[n];
                rackInSet = new boolean[rackCount];
            }
            java.util.Arrays.fill(rackInSet, false);
            boolean sourceRackShared = false;
            int sourceRack = source >= 0 ? rack[source] : -1;
            for (int member : set) {
                if (member >= 0 && member != source && rack[member] >= 0) {
                    rackInSet[rack[member]] = true;
                    sourceRackShared |= rack[member] == sourceRack;
                }
            }
            boolean anyRack = !sourceRackShared && sourceRack >= 0; // a target's rack may not be one the set has
            for (int i = 0; i < n; i++) {
                mayTake[i] = !(anyRack && rack[i] >= 0 && rackInSet[rack[i]]);
            }
            for (int member : set) {
                if (member >= 0) {
                    mayTake[member] = false;
                }
            }
            return mayTake;
        }

        /** Applies one move of {@code shard} and records it; returns the index of {@code source} in the slot's set. */
        private int moveShard(int shard, int source, int target, int[] set, List<Move> moves) {
            apply(source, target, shardBytes[shard]);
            shardMoved[shard] = true;
            int at = -1;
            for (int k = 0; k < set.length; k++) {
                if (set[k] == source) {
                    set[k] = target;
                    at = k;
                }
            }
            moves.add(new Move(shardSlot[shard], ids[source], ids[target], shardBytes[shard]));
            return at;
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
                int target = emptiestEligible(set, source, shardBytes[shard]);
                if (target < 0) {
                    continue;
                }
                long bytes = shardBytes[shard];
                double next = cvAfter(source, target, bytes);
                if (next >= cv - EPSILON) {
                    continue;
                }
                allowance[source] -= bytes;
                moveShard(shard, source, target, set, moves);
                return next;
            }
            return Double.NaN;
        }

        /** Any node that is not draining may take a drained shard (sources too: the drain comes first) if it has room. */
        private int emptiestForDrain(int[] set, int source, long bytes) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (!draining[i] && !excluded[i] && fits(i, bytes) && eligible(set, source, i) && (best < 0 || before(i, best))) {
                    best = i;
                }
            }
            return best;
        }

        private int emptiestEligible(int[] set, int source, long bytes) {
            for (int target : targetsByU) {
                if (fits(target, bytes) && eligible(set, source, target)) {
                    return target;
                }
            }
            return -1;
        }

        /** Whether {@code bytes} more leave the node within its capacity: no plan fills a node past it. */
        private boolean fits(int node, long bytes) {
            return used[node] + bytes <= total[node];
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
            int pos = indexOfTarget(target);
            while (pos + 1 < targetsByU.length && before(targetsByU[pos + 1], target)) {
                targetsByU[pos] = targetsByU[pos + 1];
                pos++;
            }
            targetsByU[pos] = target;
        }

        /**
         * Where {@code target} stands in the target list, by a bounded search. With the unbounded
         * {@code while (targetsByU[pos] != target) pos++} inlined into {@link #moveOneShard}, OpenJDK
         * 17.0.15's C2 compiled code that crashed the JVM with SIGSEGV on the {@code scale-512} plans;
         * the same run went through interpreted, without loop predication, without unrolling, and with
         * this search (docs/migrator.md §2).
         */
        private int indexOfTarget(int target) {
            int[] order = targetsByU;
            for (int pos = 0; pos < order.length; pos++) {
                if (order[pos] == target) {
                    return pos;
                }
            }
            throw new IllegalStateException("node " + target + " is not in the target list");
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
                    u[k++] = Math.max(0.0, used[i] / total[i]); // a node given all it held: 0, not a rounding below it
                }
            }
            return io.skewguard.core.stats.CoefficientOfVariation.of(u);
        }
    }
}
