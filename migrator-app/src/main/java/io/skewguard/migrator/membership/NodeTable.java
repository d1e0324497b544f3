package io.skewguard.migrator.membership;

import io.skewguard.schemas.NodeMembership;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/** What {@code node list} prints: a summary line and one row per known node of the cluster. */
final class NodeTable {

    private static final String[] HEADER = {"NODE", "RACK", "STATE", "SET BY", "USED", "TOTAL", "UTIL", "SETS", "READ-ONLY",
            "UPDATED", "REASON"};
    private static final int SLOTS_SHOWN = 5;

    private NodeTable() {
    }

    static List<String> lines(KnownCluster k) {
        List<String> out = new ArrayList<>();
        out.add(summary(k));
        if (k.nodes().isEmpty()) {
            return out;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (String n : k.nodes()) {
            rows.add(row(k, n));
        }
        int[] width = new int[HEADER.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                b.append(i == r.length - 1 ? r[i] : String.format(Locale.ROOT, "%-" + width[i] + "s  ", r[i]));
            }
            out.add(b.toString().stripTrailing());
        }
        return out;
    }

    private static String summary(KnownCluster k) {
        StringBuilder b = new StringBuilder("cluster ").append(k.cluster()).append(": ").append(k.nodes().size())
                .append(k.nodes().size() == 1 ? " node" : " nodes").append(", ").append(k.liveNodes().size()).append(" live; ");
        if (k.report() == null) {
            b.append("no report yet");
        } else {
            b.append("latest report ").append(k.report().getWindowEnd().truncatedTo(ChronoUnit.SECONDS))
                    .append(String.format(Locale.ROOT, " (capacity CV %.3f)", k.report().getCapacityCv()));
        }
        b.append("; ");
        if (k.rows().isEmpty()) {
            b.append("no slot table yet");
        } else {
            b.append("slot table of ").append(k.rows().size()).append(" slots, ").append(k.candidateSetSize().getAsInt())
                    .append(" candidates per set, routing epoch ").append(k.routingEpoch().getAsLong());
        }
        return b.toString();
    }

    private static String[] row(KnownCluster k, String n) {
        Optional<NodeMembership> e = k.entry(n);
        OptionalLong used = k.usedBytes(n);
        OptionalLong total = k.totalBytes(n);
        List<Integer> readOnly = k.readOnlySlots(n);
        String ro = readOnly.isEmpty() ? "0" : readOnly.size() + " (slots "
                + readOnly.stream().limit(SLOTS_SHOWN).map(String::valueOf).collect(Collectors.joining(","))
                + (readOnly.size() > SLOTS_SHOWN ? ",…" : "") + ")";
        return new String[] {
            n,
            k.rack(n) == null ? "-" : k.rack(n),
            e.map(x -> x.getState().toString()).orElse("member"),
            e.map(NodeMembership::getSource).orElse("-"),
            used.isPresent() ? ByteSize.format(used.getAsLong()) : "-",
            total.isPresent() ? ByteSize.format(total.getAsLong()) : "-",
            used.isPresent() && total.isPresent() ? MembershipRules.percent(used.getAsLong(), total.getAsLong()) : "-",
            Integer.toString(k.slotsHolding(n).size()),
            ro,
            e.map(x -> x.getUpdatedAt().truncatedTo(ChronoUnit.SECONDS).toString()).orElse("-"),
            e.map(x -> x.getReason() == null ? "" : x.getReason()).orElse("no membership record (known from the "
                    + (k.figures(n).isPresent() ? "latest report" : "slot table") + ")"),
        };
    }
}
