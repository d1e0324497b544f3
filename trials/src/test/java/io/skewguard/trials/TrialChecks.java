package io.skewguard.trials;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.service.WriteJournal.LastWrite;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checks of a kill trial, on what the loop left in the topics and the stores
 * ({@link TrialHistory}), after it went quiet. Pure: every check is a function of the history, and
 * each names what it found wrong. The rules:
 *
 * <ul>
 *   <li><b>alerts</b>: every transition once (no alert id twice), and each cluster's and kind's
 *       transitions a valid chain from NORMAL (none lost: a missing one breaks the chain);
 *       no two reports of one cluster for the same tick;</li>
 *   <li><b>weights</b>: a cluster's weight epochs 1, 2, 3, … without gap, one command per node and
 *       epoch (a repeat is identical), each command's old weight the node's weight after the
 *       epoch before, every node-weights row the weight the commands give; every node's agent at
 *       the newest epoch of its commands with that weight (none lost, none applied twice);</li>
 *   <li><b>migrations</b>: one slot, source and target per migration id; each migration ended
 *       exactly one way — committed (COMMIT to both, CLEANUP to the source, all answered DONE) or
 *       aborted (ABORT to both) —, never both; a batch's switch commits entirely or aborts
 *       entirely; each node's recorded stage the one its commands lead to, and no record without a
 *       command; every command answered, a repeated command answered as the first time (no copy
 *       run twice), no command refused by an agent's safety rules; every agent consumed every
 *       command;</li>
 *   <li><b>slot table</b>: every slot starts at routing epoch 0 with the writers' starting
 *       candidates; the epochs of changes run 1, 2, 3, … once each; every change is one committed
 *       migration's source replaced by its target, and every committed migration is one change;
 *       no row in flight at the end;</li>
 *   <li><b>keys</b>: every key of the journal readable at its last version through the final
 *       table (a candidate of its slot holds that version or a newer one); no node outside a slot's
 *       candidate set holds any key of the slot.</li>
 * </ul>
 */
final class TrialChecks {

    /** Examples quoted per kind of finding, so that a broken run gives a readable message. */
    private static final int EXAMPLES = 5;

    private final TrialHistory h;
    private final List<String> violations = new ArrayList<>();

    private TrialChecks(TrialHistory history) {
        this.h = history;
    }

    /** Everything wrong with {@code history}; empty when every rule holds. */
    static List<String> violations(TrialHistory history) {
        TrialChecks c = new TrialChecks(history);
        c.alerts();
        c.reports();
        c.weights();
        c.migrations();
        c.slotTable();
        c.keys();
        return List.copyOf(c.violations);
    }

    /** What the history holds, in numbers, for the trial's report. */
    static Map<String, Long> figures(TrialHistory h) {
        Map<String, Long> f = new LinkedHashMap<>();
        f.put("alert transitions", (long) h.alerts().size());
        f.put("reports", (long) h.reports().size());
        f.put("weight epochs", h.weightCommands().stream().mapToLong(WeightCommand::getEpoch).max().orElse(0));
        f.put("weight commands", (long) h.weightCommands().size());
        Map<String, Set<MigrationPhase>> phases = phasesByMigration(h.migrationCommands());
        f.put("migrations", (long) phases.size());
        f.put("migrations committed", phases.values().stream().filter(p -> p.contains(MigrationPhase.COMMIT)).count());
        f.put("migrations aborted", phases.values().stream().filter(p -> p.contains(MigrationPhase.ABORT)).count());
        f.put("migration commands", (long) h.migrationCommands().size());
        f.put("answers", h.statuses().stream().filter(s -> !isRepairStatus(s)).count());
        f.put("routing epoch", h.slotRows().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElse(0));
        f.put("keys written", (long) h.journal().size());
        return f;
    }

    private void fail(String what) {
        violations.add(what);
    }

    private void fail(String what, List<String> examples) {
        if (!examples.isEmpty()) {
            violations.add(what + ": " + examples.size() + ", e.g. " + examples.subList(0, Math.min(EXAMPLES, examples.size())));
        }
    }

    // ---------------------------------------------------------------------------------- detector

    private void alerts() {
        Set<String> ids = new HashSet<>();
        List<String> twice = new ArrayList<>();
        Map<String, SkewAlert> last = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (SkewAlert a : h.alerts()) {
            if (!ids.add(a.getAlertId())) {
                twice.add(a.getAlertId());
            }
            String machine = a.getCluster() + "/" + a.getKind();
            SkewAlert before = last.put(machine, a);
            AlertState from = before == null ? AlertState.NORMAL : before.getState();
            if (a.getPreviousState() != from || !validTransition(a.getPreviousState(), a.getState())) {
                broken.add(a.getAlertId() + " (" + a.getPreviousState() + " -> " + a.getState() + " after "
                        + (before == null ? "nothing" : before.getAlertId()) + ")");
            } else if (before != null && a.getEventTime().isBefore(before.getEventTime())) {
                // CLEARED -> NORMAL and NORMAL -> OBSERVING may share a tick; nothing goes back in time
                broken.add(a.getAlertId() + " (before " + before.getAlertId() + ")");
            }
        }
        fail("alert transitions written twice", twice);
        fail("alert transitions that do not follow the one before (one lost or repeated)", broken);
    }

    private static boolean validTransition(AlertState from, AlertState to) {
        return switch (from) {
            case NORMAL -> to == AlertState.OBSERVING;
            case OBSERVING -> to == AlertState.NORMAL || to == AlertState.CONFIRMED;
            case CONFIRMED -> to == AlertState.CLEARED;
            case CLEARED -> to == AlertState.NORMAL;
        };
    }

    private void reports() {
        Set<String> ticks = new HashSet<>();
        List<String> twice = new ArrayList<>();
        for (SkewReport r : h.reports()) {
            String tick = r.getCluster() + "@" + r.getWindowEnd().toEpochMilli();
            if (!ticks.add(tick)) {
                twice.add(tick);
            }
        }
        fail("reports written twice for one tick", twice);
    }

    // ---------------------------------------------------------------------------------- balancer

    private void weights() {
        Map<String, WeightCommand> byId = new LinkedHashMap<>();
        List<String> differing = new ArrayList<>();
        for (WeightCommand c : h.weightCommands()) {
            WeightCommand before = byId.putIfAbsent(c.getCommandId(), c);
            if (before != null && !before.equals(c)) {
                differing.add(c.getCommandId());
            }
            if (!c.getCommandId().equals("weight/" + c.getCluster() + "/" + c.getEpoch() + "/" + c.getNode())) {
                differing.add(c.getCommandId() + " names another epoch or node than it carries");
            }
        }
        fail("weight commands sent twice with different contents", differing);

        // the weight table, epoch by epoch, from the commands
        TreeMap<Long, List<WeightCommand>> byEpoch = new TreeMap<>();
        byId.values().stream().filter(c -> c.getCluster().equals(h.cluster()))
                .forEach(c -> byEpoch.computeIfAbsent(c.getEpoch(), e -> new ArrayList<>()).add(c));
        long expected = 1;
        for (long epoch : byEpoch.keySet()) {
            if (epoch != expected) {
                fail("weight epochs not consecutive: epoch " + epoch + " follows " + (expected - 1));
            }
            expected = epoch + 1;
        }
        Map<String, Double> weight = new HashMap<>();
        Map<Long, Map<String, Double>> tableAt = new HashMap<>();
        List<String> chain = new ArrayList<>();
        for (Map.Entry<Long, List<WeightCommand>> e : byEpoch.entrySet()) {
            for (WeightCommand c : e.getValue()) {
                double old = weight.getOrDefault(c.getNode(), 1.0);
                if (Math.abs(old - c.getOldWeight()) > 1e-9) {
                    chain.add(c.getCommandId() + " (old weight " + c.getOldWeight() + ", the node had " + old + ")");
                }
                weight.put(c.getNode(), c.getNewWeight());
            }
            tableAt.put(e.getKey(), new HashMap<>(weight));
        }
        fail("weight commands whose old weight is not the weight before (a round lost or applied twice)", chain);
        List<String> rows = new ArrayList<>();
        for (NodeWeight row : h.nodeWeights()) {
            Map<String, Double> table = tableAt.get(row.getEpoch());
            double w = table == null ? Double.NaN : table.getOrDefault(row.getNode(), 1.0);
            if (table == null || Math.abs(w - row.getWeight()) > 1e-9) {
                rows.add(row.getNode() + "@" + row.getEpoch() + "=" + row.getWeight() + " (commands say " + w + ")");
            }
        }
        fail("node-weights rows that differ from the weight commands", rows);

        // every agent at the newest weight sent to its node
        List<String> agents = new ArrayList<>();
        for (Map.Entry<String, AgentState> e : h.agents().entrySet()) {
            WeightCommand newest = byId.values().stream().filter(c -> c.getNode().equals(e.getKey()))
                    .max(java.util.Comparator.comparingLong(WeightCommand::getEpoch)).orElse(null);
            AgentState s = e.getValue();
            long epoch = newest == null ? AgentState.NO_EPOCH : newest.getEpoch();
            double w = newest == null ? 1.0 : newest.getNewWeight();
            if (s.weightEpoch() != epoch || Math.abs(s.weight() - w) > 1e-9) {
                agents.add(e.getKey() + " applied epoch " + s.weightEpoch() + " weight " + s.weight() + ", its newest command is epoch "
                        + epoch + " weight " + w);
            }
        }
        fail("agents not at the newest weight command of their node", agents);
    }

    // ---------------------------------------------------------------------------------- migrator and agents

    private static boolean isRepairStatus(MigrationStatus s) {
        return s.getMigrationId().endsWith("/repair");
    }

    private static Map<String, Set<MigrationPhase>> phasesByMigration(List<MigrationCommand> commands) {
        Map<String, Set<MigrationPhase>> phases = new TreeMap<>();
        for (MigrationCommand c : commands) {
            phases.computeIfAbsent(c.getMigrationId(), id -> EnumSet.noneOf(MigrationPhase.class)).add(c.getPhase());
        }
        return phases;
    }

    private record Shard(int slot, String source, String target) {}

    private void migrations() {
        Map<String, Shard> shards = new TreeMap<>();
        Map<String, Map<String, Set<MigrationPhase>>> sentTo = new TreeMap<>(); // migration -> node -> phases
        Map<String, MigrationCommand> byCommandId = new LinkedHashMap<>();
        List<String> twoShards = new ArrayList<>();
        for (MigrationCommand c : h.migrationCommands()) {
            Shard s = new Shard(c.getSlot(), c.getSourceNode(), c.getTargetNode());
            Shard before = shards.putIfAbsent(c.getMigrationId(), s);
            if (before != null && !before.equals(s)) {
                twoShards.add(c.getMigrationId() + " (" + before + " and " + s + ")");
            }
            sentTo.computeIfAbsent(c.getMigrationId(), id -> new TreeMap<>())
                    .computeIfAbsent(c.getNode(), n -> EnumSet.noneOf(MigrationPhase.class)).add(c.getPhase());
            byCommandId.putIfAbsent(c.getCommandId(), c);
        }
        fail("migration ids naming two moves", twoShards);

        // answers per command id
        Map<String, List<MigrationStatus>> answers = new HashMap<>();
        for (MigrationStatus s : h.statuses()) {
            if (!isRepairStatus(s)) {
                answers.computeIfAbsent(s.getCommandId(), id -> new ArrayList<>()).add(s);
            }
        }

        List<String> both = new ArrayList<>();
        List<String> unfinished = new ArrayList<>();
        for (Map.Entry<String, Map<String, Set<MigrationPhase>>> e : sentTo.entrySet()) {
            String id = e.getKey();
            Shard s = shards.get(id);
            Set<MigrationPhase> src = e.getValue().getOrDefault(s.source(), Set.of());
            Set<MigrationPhase> tgt = e.getValue().getOrDefault(s.target(), Set.of());
            boolean committed = src.contains(MigrationPhase.COMMIT) || tgt.contains(MigrationPhase.COMMIT);
            boolean aborted = src.contains(MigrationPhase.ABORT) || tgt.contains(MigrationPhase.ABORT);
            if (committed && aborted) {
                both.add(id);
            } else if (committed) {
                if (!(src.contains(MigrationPhase.COMMIT) && tgt.contains(MigrationPhase.COMMIT) && src.contains(MigrationPhase.CLEANUP))
                        || !answeredDone(answers, id, MigrationPhase.COMMIT, s.source())
                        || !answeredDone(answers, id, MigrationPhase.COMMIT, s.target())
                        || !answeredDone(answers, id, MigrationPhase.CLEANUP, s.source())) {
                    unfinished.add(id + " committed but not switched and cleaned up on both (" + e.getValue() + ")");
                }
            } else if (aborted) {
                if (!(src.contains(MigrationPhase.ABORT) && tgt.contains(MigrationPhase.ABORT))) {
                    unfinished.add(id + " aborted on one side only (" + e.getValue() + ")");
                }
            } else {
                unfinished.add(id + " neither committed nor aborted (" + e.getValue() + ")");
            }
        }
        fail("migrations both committed and aborted", both);
        fail("migrations that did not end exactly one way", unfinished);

        batches();
        agentRecords(shards, sentTo);

        List<String> unanswered = new ArrayList<>();
        List<String> inconsistent = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (MigrationCommand c : byCommandId.values()) {
            List<MigrationStatus> as = answers.getOrDefault(c.getCommandId(), List.of());
            if (as.isEmpty()) {
                unanswered.add(c.getCommandId());
            }
            Set<Long> doneBytes = new TreeSet<>();
            for (MigrationStatus a : as) {
                if (a.getOutcome() == StepResult.DONE) {
                    doneBytes.add(c.getPhase() == MigrationPhase.COPY ? a.getBytesCopied() : 0L);
                }
                if (a.getOutcome() == StepResult.FAILED && String.valueOf(a.getMessage()).contains("refused")) {
                    refused.add(c.getCommandId() + ": " + a.getMessage());
                }
            }
            if (doneBytes.size() > 1) {
                inconsistent.add(c.getCommandId() + " DONE with " + doneBytes + " bytes");
            }
            if (c.getPhase() == MigrationPhase.COPY) {
                boolean done = false;
                for (MigrationStatus a : as) {
                    if (a.getOutcome() == StepResult.DONE) {
                        done = true;
                    } else if (done && a.getOutcome() == StepResult.PROGRESS) {
                        inconsistent.add(c.getCommandId() + " copying again after its DONE");
                        break;
                    }
                }
            }
        }
        fail("commands never answered", unanswered);
        fail("commands answered differently when repeated (applied twice)", inconsistent);
        fail("commands an agent refused", refused);

        List<String> behind = new ArrayList<>();
        h.unconsumed().forEach((node, lag) -> {
            if (lag != 0) {
                behind.add(node + ": " + lag + " command records not consumed");
            }
        });
        fail("agents that did not consume every command", behind);
    }

    private static boolean answeredDone(Map<String, List<MigrationStatus>> answers, String migrationId, MigrationPhase phase,
                                        String node) {
        String commandId = migrationId + "/" + phase + "/" + node;
        return answers.getOrDefault(commandId, List.of()).stream().anyMatch(a -> a.getOutcome() == StepResult.DONE);
    }

    private void batches() {
        Map<String, Set<String>> prepared = new TreeMap<>();
        Map<String, Set<String>> committed = new TreeMap<>();
        Map<String, Set<String>> aborted = new TreeMap<>();
        for (MigrationCommand c : h.migrationCommands()) {
            if (c.getBatchId() == null) {
                continue;
            }
            Map<String, Set<String>> into = switch (c.getPhase()) {
                case PREPARE -> prepared;
                case COMMIT -> committed;
                case ABORT -> aborted;
                default -> null;
            };
            if (into != null) {
                into.computeIfAbsent(c.getBatchId(), b -> new TreeSet<>()).add(c.getMigrationId());
            }
        }
        List<String> split = new ArrayList<>();
        Set<String> batches = new TreeSet<>(prepared.keySet());
        batches.addAll(committed.keySet());
        batches.addAll(aborted.keySet());
        for (String b : batches) {
            Set<String> c = committed.getOrDefault(b, Set.of());
            Set<String> a = aborted.getOrDefault(b, Set.of());
            Set<String> p = prepared.getOrDefault(b, Set.of());
            if (!c.isEmpty() && !a.isEmpty()) {
                split.add(b + " committed " + c + " and aborted " + a);
            } else if (!p.isEmpty() && !(c.containsAll(p) || a.containsAll(p))) {
                split.add(b + " prepared " + p + " but committed " + c + " and aborted " + a);
            }
        }
        fail("batches that neither committed nor aborted as a whole", split);
    }

    private void agentRecords(Map<String, Shard> shards, Map<String, Map<String, Set<MigrationPhase>>> sentTo) {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Map<String, Set<MigrationPhase>>> e : sentTo.entrySet()) {
            Shard s = shards.get(e.getKey());
            for (Map.Entry<String, Set<MigrationPhase>> toNode : e.getValue().entrySet()) {
                String node = toNode.getKey();
                AgentState state = h.agents().get(node);
                if (state == null) {
                    continue; // a node no agent of the trial hosts
                }
                Stage expected = expectedStage(node.equals(s.target()), toNode.getValue());
                MigrationRecord r = state.migration(e.getKey());
                Stage actual = r == null ? null : r.stage();
                if (actual != expected) {
                    wrong.add(node + " " + e.getKey() + " at " + actual + ", its commands " + toNode.getValue() + " lead to " + expected);
                }
            }
        }
        for (Map.Entry<String, AgentState> e : h.agents().entrySet()) {
            for (String id : e.getValue().migrations().keySet()) {
                if (!sentTo.getOrDefault(id, Map.of()).containsKey(e.getKey())) {
                    wrong.add(e.getKey() + " records " + id + ", which no command to it names");
                }
            }
        }
        fail("agents whose recorded stage is not what their commands lead to (a command lost or applied twice)", wrong);
    }

    /** The stage a node ends at once it has applied {@code phases} of one migration. */
    static Stage expectedStage(boolean target, Set<MigrationPhase> phases) {
        if (phases.contains(MigrationPhase.ABORT)) {
            return Stage.ABORTED;
        }
        if (target) {
            return phases.contains(MigrationPhase.COMMIT) ? Stage.COMMITTED
                    : phases.contains(MigrationPhase.PREPARE) ? Stage.PREPARED : Stage.COPIED;
        }
        return phases.contains(MigrationPhase.CLEANUP) ? Stage.CLEANED
                : phases.contains(MigrationPhase.COMMIT) ? Stage.COMMITTED : Stage.PREPARED;
    }

    // ---------------------------------------------------------------------------------- slot table

    /** The latest row of every slot, by slot. */
    private Map<Integer, SlotAssignment> finalTable() {
        Map<Integer, SlotAssignment> latest = new TreeMap<>();
        for (SlotAssignment row : h.slotRows()) {
            if (row.getCluster().equals(h.cluster())) {
                latest.put(row.getSlot(), row);
            }
        }
        return latest;
    }

    private record Commit(String migrationId, int slot, String source, String target) {}

    private void slotTable() {
        // committed migrations by the routing epoch their COMMIT carries
        Map<Long, Set<Commit>> commits = new TreeMap<>();
        for (MigrationCommand c : h.migrationCommands()) {
            if (c.getPhase() == MigrationPhase.COMMIT) {
                commits.computeIfAbsent(c.getRoutingEpoch(), e -> new HashSet<>())
                        .add(new Commit(c.getMigrationId(), c.getSlot(), c.getSourceNode(), c.getTargetNode()));
            }
        }
        List<String> wrong = new ArrayList<>();
        commits.forEach((epoch, cs) -> {
            if (cs.size() != 1) {
                wrong.add("routing epoch " + epoch + " committed " + cs.size() + " migrations: " + cs);
            }
        });

        Map<Integer, SlotAssignment> previous = new HashMap<>();
        Map<Long, String> changes = new TreeMap<>();
        for (SlotAssignment row : h.slotRows()) {
            if (!row.getCluster().equals(h.cluster())) {
                continue;
            }
            int slot = row.getSlot();
            SlotAssignment before = previous.put(slot, row);
            if (before == null) {
                List<String> starting = slot < h.startingTable().size() ? h.startingTable().get(slot) : List.of();
                if (row.getRoutingEpoch() != 0 || !row.getCandidates().equals(starting)) {
                    wrong.add("slot " + slot + " starts at epoch " + row.getRoutingEpoch() + " with " + row.getCandidates()
                            + ", the writers started from " + starting + " at epoch 0");
                }
                continue;
            }
            boolean changed = !before.getCandidates().equals(row.getCandidates());
            if (row.getRoutingEpoch() < before.getRoutingEpoch()) {
                wrong.add("slot " + slot + " went back from epoch " + before.getRoutingEpoch() + " to " + row.getRoutingEpoch());
            } else if (changed != (row.getRoutingEpoch() > before.getRoutingEpoch())) {
                wrong.add("slot " + slot + ": candidates " + before.getCandidates() + " -> " + row.getCandidates() + " from epoch "
                        + before.getRoutingEpoch() + " to " + row.getRoutingEpoch());
            }
            if (changed) {
                String seen = changes.put(row.getRoutingEpoch(), "slot " + slot);
                if (seen != null) {
                    wrong.add("routing epoch " + row.getRoutingEpoch() + " changed " + seen + " and slot " + slot);
                }
                Set<Commit> cs = commits.getOrDefault(row.getRoutingEpoch(), Set.of());
                Commit commit = cs.size() == 1 ? cs.iterator().next() : null;
                List<String> after = commit == null ? null : replaced(before.getCandidates(), commit.source(), commit.target());
                if (commit == null || commit.slot() != slot || !row.getCandidates().equals(after)) {
                    wrong.add("slot " + slot + " changed " + before.getCandidates() + " -> " + row.getCandidates() + " at epoch "
                            + row.getRoutingEpoch() + ", the committed migration of that epoch: " + cs);
                }
            }
        }
        long expected = 1;
        for (long epoch : changes.keySet()) {
            if (epoch != expected) {
                wrong.add("routing epochs of the changes not consecutive: " + epoch + " follows " + (expected - 1));
            }
            expected = epoch + 1;
        }
        for (Map.Entry<Long, Set<Commit>> e : commits.entrySet()) {
            if (!changes.containsKey(e.getKey())) {
                wrong.add("committed migration " + e.getValue() + " at epoch " + e.getKey() + " changed no row");
            }
        }
        for (SlotAssignment row : finalTable().values()) {
            if (row.getInFlightTarget() != null) {
                wrong.add("slot " + row.getSlot() + " still in flight to " + row.getInFlightTarget() + " (" + row.getMigrationId() + ")");
            }
        }
        fail("slot-table rows that are not what the committed migrations say", wrong);
    }

    private static List<String> replaced(List<String> candidates, String source, String target) {
        List<String> next = new ArrayList<>(candidates);
        int at = next.indexOf(source);
        if (at < 0) {
            return null;
        }
        next.set(at, target);
        return next;
    }

    // ---------------------------------------------------------------------------------- keys

    private void keys() {
        Map<Integer, SlotAssignment> table = finalTable();
        int slots = h.startingTable().size();
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, LastWrite> e : h.journal().entrySet()) {
            String key = e.getKey();
            int slot = SlotTable.slotOf(HashRing.hashKey(key), slots);
            SlotAssignment row = table.get(slot);
            List<String> candidates = row != null ? row.getCandidates() : h.startingTable().get(slot);
            long held = -1;
            for (String node : candidates) {
                Long v = h.stores().getOrDefault(node, Map.of()).getOrDefault(slot, Map.of()).get(key);
                if (v != null) {
                    held = Math.max(held, v);
                }
            }
            if (held < e.getValue().version()) {
                lost.add(key + "@" + e.getValue().version() + " (written to " + e.getValue().node() + ", slot " + slot
                        + ", candidates " + candidates + (held < 0 ? ": none holds it" : ": held at " + held) + ")");
            }
        }
        fail("keys not readable at their last version", lost);

        List<String> stray = new ArrayList<>();
        h.stores().forEach((node, bySlot) -> bySlot.forEach((slot, keys) -> {
            SlotAssignment row = table.get(slot);
            List<String> candidates = row != null ? row.getCandidates() : h.startingTable().get(slot);
            if (!keys.isEmpty() && !candidates.contains(node)) {
                stray.add(node + " holds " + keys.size() + " keys of slot " + slot + ", whose candidates are " + candidates);
            }
        }));
        fail("nodes holding data of a slot they are no candidate of", stray);
    }
}
