package io.skewguard.migrator.membership;

import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The rules of the {@code node} command, apart from Kafka: from what the topics say of a cluster
 * ({@link KnownCluster}) and what the operator asks ({@link NodeChange}), what will happen and the
 * record to write, or why not.
 *
 * <p>Refused (nothing written): a drain or remove of a node the cluster does not know; a drain or
 * remove of the last live node of a rack when the remaining live nodes would span fewer racks than
 * the candidate-set size m (nodes on no known rack each count as their own rack, as on the ring);
 * a drain whose bytes do not fit below {@code drain-headroom} on the other live nodes; an add of a
 * DRAINING node (that is a cancel); a cancel of a drain that has finished or of a removed node.
 * Nothing to do (exit code 0, nothing written): an add of an ACTIVE node, a drain of a DRAINING
 * one, a cancel of an ACTIVE one, a remove of a REMOVED or LOST one.
 */
public final class MembershipRules {

    /** The {@code source} of every record the command writes. */
    public static final String SOURCE = "operator";

    private final double drainHeadroom;

    /** @param drainHeadroom share of each other live node's total bytes a drain must leave free, in [0, 1) */
    public MembershipRules(double drainHeadroom) {
        if (!(drainHeadroom >= 0 && drainHeadroom < 1)) {
            throw new IllegalArgumentException("drain headroom must be at least 0 and below 1, was " + drainHeadroom);
        }
        this.drainHeadroom = drainHeadroom;
    }

    /**
     * @param who the operator, for the record's reason (e.g. the OS user)
     * @param note the operator's own words on why, or null
     * @param now the record's time
     */
    public Verdict<NodeMembership> decide(KnownCluster k, NodeChange change, String who, String note, Instant now) {
        if (change instanceof NodeChange.Add a) {
            return add(k, a, reason("add", who, note), now);
        }
        if (change instanceof NodeChange.Drain d) {
            return drain(k, d.node(), reason("drain", who, note), now);
        }
        if (change instanceof NodeChange.CancelDrain c) {
            return cancel(k, c.node(), reason("drain cancelled", who, note), now);
        }
        return remove(k, change.node(), reason("remove", who, note), now);
    }

    private Verdict<NodeMembership> add(KnownCluster k, NodeChange.Add a, String reason, Instant now) {
        String n = a.node();
        String c = k.cluster();
        Optional<NodeMembership> entry = k.entry(n);
        MembershipState was = entry.map(NodeMembership::getState).orElse(null);
        if (was == MembershipState.ACTIVE) {
            List<String> lines = new ArrayList<>(List.of(describe(k, n)));
            NodeMembership e = entry.get();
            String keeps = !changes(e, a) ? "" : " (its record keeps rack " + orNone(e.getRack()) + " and capacity "
                    + (e.getCapacityBytes() == null ? "unknown" : ByteSize.format(e.getCapacityBytes()))
                    + ": add does not change a member's rack or capacity)";
            lines.add(n + " is already ACTIVE in cluster " + c + ": nothing written" + keeps);
            return new Verdict.Unchanged<>(lines);
        }
        if (was == MembershipState.DRAINING) {
            return new Verdict.Refused<>(n + " is DRAINING in cluster " + c + "; to keep it, cancel the drain: node drain " + n
                    + " --cluster " + c + " --cancel; nothing written");
        }
        String rack = a.rack() != null ? a.rack() : k.rack(n);
        Long capacity = a.capacityBytes() != null ? a.capacityBytes()
                : k.totalBytes(n).isPresent() ? Long.valueOf(k.totalBytes(n).getAsLong()) : null;
        List<String> lines = new ArrayList<>(List.of(describe(k, n)));
        if (was != null) {
            lines.add(n + " was " + was + ": it joins cluster " + c + " again as a new member.");
        }
        lines.add(n + " becomes ACTIVE in cluster " + c + " (rack " + orNone(rack) + ", capacity "
                + (capacity == null ? "from its capacity reports" : ByteSize.format(capacity)) + ").");
        Map.Entry<Long, Long> live = k.usedAndTotal(k.liveNodes().stream().filter(x -> !x.equals(n)).toList());
        if (live.getValue() > 0) {
            String now_ = "the other live nodes are at " + percent(live.getKey(), live.getValue()) + " (" + ByteSize.format(live.getKey())
                    + " of " + ByteSize.format(live.getValue()) + ")";
            lines.add(capacity == null ? "Now " + now_ + "."
                    : "Now " + now_ + "; with " + n + " the cluster is at "
                            + percent(live.getKey() + k.usedBytes(n).orElse(0), live.getValue() + capacity) + ".");
        }
        lines.add("Next: the migrator takes " + n + " as a migration target once it reports capacity; if no repair runs it "
                + "starts one and moves cold shards to it at the normal rate limits until the capacity CV is under target-cv.");
        return new Verdict.Write<>(lines, record(k, n, MembershipState.ACTIVE, rack, capacity, reason, now));
    }

    private Verdict<NodeMembership> drain(KnownCluster k, String n, String reason, Instant now) {
        String c = k.cluster();
        if (!k.knows(n)) {
            return unknown("drain", k, n);
        }
        MembershipState state = k.state(n);
        if (state == MembershipState.DRAINING) {
            return new Verdict.Unchanged<>(List.of(describe(k, n), n + " is already DRAINING in cluster " + c
                    + ": nothing written; the migrator moves its shards away"));
        }
        if (state != MembershipState.ACTIVE) {
            return new Verdict.Refused<>("drain of " + n + " refused: it is " + state + " in cluster " + c
                    + ", in no candidate set, so there is nothing to drain; nothing written");
        }
        Optional<String> racks = rackRule(k, n, "drain");
        if (racks.isPresent()) {
            return new Verdict.Refused<>(racks.get());
        }
        List<String> others = others(k, n);
        OptionalLong used = k.usedBytes(n);
        long free = freeBelowHeadroom(k, others);
        if (used.isPresent() && used.getAsLong() > free) {
            return new Verdict.Refused<>("drain of " + n + " refused: it holds " + ByteSize.format(used.getAsLong()) + " but the other "
                    + others.size() + " live nodes have only " + ByteSize.format(free) + " free below the drain-headroom of "
                    + percent(drainHeadroom) + ", so the cluster would be over capacity; add a node first (node add) "
                    + "or remove the node instead; nothing written");
        }
        List<String> lines = new ArrayList<>(List.of(describe(k, n)));
        Map.Entry<Long, Long> before = k.usedAndTotal(k.liveNodes());
        Map.Entry<Long, Long> after = k.usedAndTotal(others);
        long moved = used.orElse(0);
        lines.add("It holds " + (used.isPresent() ? ByteSize.format(moved) : "an unknown number of bytes (no capacity figure in the latest report)")
                + " in " + k.slotsHolding(n).size() + " candidate sets; the other " + others.size() + " live nodes have "
                + ByteSize.format(free) + " free below the drain-headroom of " + percent(drainHeadroom) + ".");
        if (after.getValue() > 0) {
            lines.add("The cluster is at " + percent(before.getKey(), before.getValue()) + " now and at "
                    + percent(after.getKey() + moved, after.getValue()) + " once the drain is done.");
        }
        lines.add(n + " becomes DRAINING: the migrator marks it read-only in every candidate set that holds it (it keeps serving "
                + "reads, takes no new writes), moves its shards away at the normal rate limits, then takes it out of every "
                + "candidate set and records it DRAINED.");
        NodeMembership e = k.entry(n).orElse(null);
        return new Verdict.Write<>(lines, record(k, n, MembershipState.DRAINING, k.rack(n),
                e == null ? null : e.getCapacityBytes(), reason, now));
    }

    private Verdict<NodeMembership> cancel(KnownCluster k, String n, String reason, Instant now) {
        String c = k.cluster();
        if (!k.knows(n)) {
            return unknown("drain --cancel", k, n);
        }
        MembershipState state = k.state(n);
        if (state == MembershipState.ACTIVE) {
            return new Verdict.Unchanged<>(List.of(describe(k, n), n + " is ACTIVE in cluster " + c
                    + ", not DRAINING: there is no drain to cancel; nothing written"));
        }
        if (state != MembershipState.DRAINING) {
            return new Verdict.Refused<>("drain --cancel of " + n + " refused: it is " + state + " in cluster " + c
                    + ", no drain runs; to take it back, node add " + n + " --cluster " + c + "; nothing written");
        }
        List<String> lines = new ArrayList<>(List.of(describe(k, n)));
        lines.add(n + " becomes ACTIVE again: the migrator clears its read-only marks in one slot-table update; it takes new "
                + "writes again; shards already moved away stay where they are.");
        NodeMembership e = k.entry(n).orElse(null);
        return new Verdict.Write<>(lines, record(k, n, MembershipState.ACTIVE, k.rack(n),
                e == null ? null : e.getCapacityBytes(), reason, now));
    }

    private Verdict<NodeMembership> remove(KnownCluster k, String n, String reason, Instant now) {
        String c = k.cluster();
        if (!k.knows(n)) {
            return unknown("remove", k, n);
        }
        MembershipState state = k.state(n);
        if (state == MembershipState.REMOVED || state == MembershipState.LOST) {
            return new Verdict.Unchanged<>(List.of(describe(k, n), n + " is already " + state + " in cluster " + c
                    + (state == MembershipState.LOST ? " (handled as removed)" : "") + ": nothing written"));
        }
        if (state != MembershipState.DRAINED) {
            Optional<String> racks = rackRule(k, n, "remove");
            if (racks.isPresent()) {
                return new Verdict.Refused<>(racks.get());
            }
        }
        List<String> lines = new ArrayList<>(List.of(describe(k, n)));
        int sets = k.slotsHolding(n).size();
        OptionalLong used = k.usedBytes(n);
        if (state == MembershipState.DRAINED) {
            lines.add(n + " is DRAINED: it is in no candidate set and holds no shard the cluster needs; it becomes REMOVED.");
        } else {
            lines.add(n + " is taken out at once: in one slot-table update the migrator replaces it in its " + sets
                    + " candidate sets by the next live node clockwise on the ring whose rack the set does not use yet, and "
                    + "records it REMOVED with the slots and bytes to rebuild; the storage layer rebuilds "
                    + (used.isPresent() ? "its " + ByteSize.format(used.getAsLong()) : "its data") + " from replicas; then a repair "
                    + "rebalances as usual." + (state == MembershipState.DRAINING
                            ? " Its drain stops: what it still holds is rebuilt from replicas instead of moved." : ""));
            List<String> others = others(k, n);
            Map.Entry<Long, Long> after = k.usedAndTotal(others);
            if (after.getValue() > 0 && used.isPresent()) {
                long usedAfter = after.getKey() + used.getAsLong();
                lines.add("Once rebuilt, the other " + others.size() + " live nodes are at " + percent(usedAfter, after.getValue())
                        + (used.getAsLong() > freeBelowHeadroom(k, others) ? " (warning: above the drain-headroom of "
                                + percent(drainHeadroom) + "; add capacity soon)" : "") + ".");
            }
        }
        NodeMembership e = k.entry(n).orElse(null);
        return new Verdict.Write<>(lines, record(k, n, MembershipState.REMOVED, k.rack(n),
                e == null ? null : e.getCapacityBytes(), reason, now));
    }

    /**
     * The refusal of taking {@code n} out of the candidate sets, when it is the last live node of its
     * rack and the other live nodes span fewer racks than the candidate-set size.
     */
    Optional<String> rackRule(KnownCluster k, String n, String verb) {
        OptionalInt m = k.candidateSetSize();
        if (m.isEmpty()) {
            return Optional.empty();
        }
        List<String> others = others(k, n);
        String rack = k.rack(n);
        boolean last = rack == null || others.stream().noneMatch(o -> rack.equals(k.rack(o)));
        int domains = racks(k, others);
        if (!last || domains >= m.getAsInt()) {
            return Optional.empty();
        }
        return Optional.of(verb + " of " + n + " refused: it is " + (rack == null ? "on no known rack" : "the last live node of rack " + rack)
                + ", and the other " + others.size() + " live nodes span " + domains + (domains == 1 ? " rack" : " racks")
                + ", fewer than the candidate-set size " + m.getAsInt() + ", so candidate sets could no longer put every candidate "
                + "on its own rack; add a node on another rack first (node add NODE --cluster " + k.cluster()
                + " --rack RACK); nothing written");
    }

    /** Distinct racks of {@code nodes}, a node on no known rack counting as its own (it conflicts with none on the ring). */
    private static int racks(KnownCluster k, List<String> nodes) {
        Set<String> known = new HashSet<>();
        int unknown = 0;
        for (String o : nodes) {
            String r = k.rack(o);
            if (r == null) {
                unknown++;
            } else {
                known.add(r);
            }
        }
        return known.size() + unknown;
    }

    /** Bytes the other nodes can take before each is at (1 - headroom) of its total. */
    long freeBelowHeadroom(KnownCluster k, List<String> others) {
        long free = 0;
        for (String o : others) {
            OptionalLong total = k.totalBytes(o);
            if (total.isPresent()) {
                long limit = (long) Math.floor(total.getAsLong() * (1 - drainHeadroom));
                free += Math.max(0, limit - k.usedBytes(o).orElse(0));
            }
        }
        return free;
    }

    private static List<String> others(KnownCluster k, String n) {
        return k.liveNodes().stream().filter(x -> !x.equals(n)).toList();
    }

    private static Verdict<NodeMembership> unknown(String verb, KnownCluster k, String n) {
        return new Verdict.Refused<>(verb + " of " + n + " refused: cluster " + k.cluster() + " has no node " + n
                + " (no membership record, not in the latest report, not in the slot table); nothing written");
    }

    /** One line on where the node stands now. */
    static String describe(KnownCluster k, String n) {
        if (!k.knows(n)) {
            return n + " now: not known in cluster " + k.cluster() + " (no membership record, not in the latest report, not in the slot table).";
        }
        StringBuilder b = new StringBuilder(n).append(" now: ");
        Optional<NodeMembership> e = k.entry(n);
        if (e.isPresent()) {
            b.append(e.get().getState()).append(", set by ").append(e.get().getSource()).append(" at ")
                    .append(e.get().getUpdatedAt().truncatedTo(ChronoUnit.SECONDS));
            if (e.get().getReason() != null) {
                b.append(" (").append(e.get().getReason()).append(')');
            }
        } else {
            b.append("a member without a membership record");
        }
        b.append("; rack ").append(orNone(k.rack(n)));
        OptionalLong used = k.usedBytes(n);
        OptionalLong total = k.totalBytes(n);
        if (used.isPresent() && total.isPresent()) {
            b.append("; ").append(ByteSize.format(used.getAsLong())).append(" used of ").append(ByteSize.format(total.getAsLong()))
                    .append(" (").append(percent(used.getAsLong(), total.getAsLong())).append(')');
        } else if (total.isPresent()) {
            b.append("; capacity ").append(ByteSize.format(total.getAsLong())).append(", used bytes not reported yet");
        }
        b.append("; candidate in ").append(k.slotsHolding(n).size()).append(" sets, read-only in ").append(k.readOnlySlots(n).size())
                .append('.');
        return b.toString();
    }

    private static boolean changes(NodeMembership e, NodeChange.Add a) {
        return (a.rack() != null && !a.rack().equals(e.getRack()))
                || (a.capacityBytes() != null && !a.capacityBytes().equals(e.getCapacityBytes()));
    }

    private static NodeMembership record(KnownCluster k, String n, MembershipState state, String rack, Long capacity,
            String reason, Instant now) {
        return NodeMembership.newBuilder().setCluster(k.cluster()).setNode(n).setState(state).setRack(rack)
                .setCapacityBytes(capacity).setSource(SOURCE).setReason(reason).setRoutingEpoch(null)
                .setUpdatedAt(now.truncatedTo(ChronoUnit.MILLIS)).build();
    }

    private static String reason(String verb, String who, String note) {
        return verb + " by " + who + (note == null || note.isBlank() ? "" : ": " + note.trim());
    }

    private static String orNone(String rack) {
        return rack == null ? "unknown" : rack;
    }

    static String percent(long part, long whole) {
        return whole <= 0 ? "-" : percent((double) part / whole);
    }

    static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }
}
