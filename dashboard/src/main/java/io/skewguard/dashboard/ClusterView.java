package io.skewguard.dashboard;

import io.skewguard.dashboard.ClusterSnapshot.Decision;
import io.skewguard.dashboard.ClusterSnapshot.NodeBar;
import io.skewguard.dashboard.ClusterSnapshot.Point;
import io.skewguard.dashboard.ClusterSnapshot.RunningMigration;
import io.skewguard.dashboard.ClusterSnapshot.Controls;
import io.skewguard.dashboard.ClusterSnapshot.ProposalView;
import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.ProposedWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The dashboard's bounded picture of one cluster, fed with the records of the loop's topics in the
 * order they are read ({@link ViewLimits} bound every part). The topics are read concurrently, so
 * records of different topics may come in any order: a migration's answer may be read before its
 * command, a late alert after a newer report; every update therefore keeps the newest by the
 * record's own time or sequence rather than by arrival. Thread-safe.
 */
final class ClusterView {

    private static final Set<StepResult> ENDS = Set.of(StepResult.DONE);

    private final String cluster;
    private final ViewLimits limits;

    // guarded by this
    private final Deque<Point> series = new ArrayDeque<>();
    private final Map<AlertKind, Double> thresholds = new EnumMap<>(AlertKind.class);
    private final Map<AlertKind, Double> clearLevels = new EnumMap<>(AlertKind.class);
    private final Map<AlertKind, String> states = new EnumMap<>(AlertKind.class);
    private final Map<AlertKind, Long> stateTimes = new EnumMap<>(AlertKind.class);
    private final Map<String, NodeFigures> figures = new TreeMap<>();
    private final Map<String, long[]> weightEpochs = new LinkedHashMap<>();
    private final Map<String, Double> weights = new LinkedHashMap<>();
    private final Map<String, String> membership = new LinkedHashMap<>();
    private final Map<String, Migration> running = new LinkedHashMap<>();
    private final Set<String> finished = new LinkedHashSet<>();
    private final Set<String> batches = new LinkedHashSet<>();
    private final Map<Long, Round> rounds = new LinkedHashMap<>();
    private final Map<String, Decision> decisions = new LinkedHashMap<>();
    private final Map<String, OperatorControl> controls = new TreeMap<>();
    private final Map<String, Proposal> proposals = new TreeMap<>();
    private long latestWindowEnd = Long.MIN_VALUE;
    private long committed;
    private long aborted;
    private long bytesMoved;
    private long roundCount;
    private long routingEpoch;
    private String migratorMessage;

    ClusterView(String cluster, ViewLimits limits) {
        this.cluster = cluster;
        this.limits = limits;
    }

    /** A migration as far as its commands and answers tell. */
    private static final class Migration {
        String batch;
        int slot = -1;
        String source;
        String target;
        MigrationPhase phase = MigrationPhase.COPY;
        long bytesCopied;
        long shardBytes;
        boolean committed;
    }

    /** One weight round (one epoch of weight commands). */
    private static final class Round {
        final String key;
        final long time;
        final String reason;
        final Map<String, String> changes = new TreeMap<>();

        Round(String key, long time, String reason) {
            this.key = key;
            this.time = time;
            this.reason = reason;
        }
    }

    synchronized void onReport(SkewReport r) {
        long end = r.getWindowEnd().toEpochMilli();
        Point p = new Point(end, r.getHeatGini(), r.getCapacityCv(), r.getHeatState().name(), r.getCapacityState().name());
        if (end >= latestWindowEnd) {
            if (end == latestWindowEnd && !series.isEmpty()) {
                series.pollLast(); // the same window again (a re-emitted report): the newer figures stand
            }
            series.addLast(p);
            latestWindowEnd = end;
            figures.clear();
            for (NodeFigures f : r.getNodes()) {
                if (figures.size() < limits.maxNodes()) {
                    figures.put(f.getNode(), f);
                }
            }
            state(AlertKind.HEAT, r.getHeatState().name(), end);
            state(AlertKind.CAPACITY, r.getCapacityState().name(), end);
        } else if (end >= latestWindowEnd - limits.history().toMillis()) {
            // a late report within the history: into its place, so that the line never runs backwards
            List<Point> all = new ArrayList<>(series);
            all.removeIf(q -> q.time() == end);
            all.add(p);
            all.sort(Comparator.comparingLong(Point::time));
            series.clear();
            series.addAll(all);
        }
        long oldest = latestWindowEnd - limits.history().toMillis();
        while (!series.isEmpty() && (series.peekFirst().time() < oldest || series.size() > limits.maxPoints())) {
            series.pollFirst();
        }
    }

    synchronized void onAlert(SkewAlert a) {
        long time = a.getEventTime().toEpochMilli();
        // a transition states the level its value was compared with: the threshold when leaving NORMAL
        // or OBSERVING, the (lower) clear level when a CONFIRMED alert clears or a CLEARED one ends
        if (a.getPreviousState() == AlertState.NORMAL || a.getPreviousState() == AlertState.OBSERVING) {
            thresholds.put(a.getKind(), a.getThreshold());
        } else {
            clearLevels.put(a.getKind(), a.getThreshold());
        }
        state(a.getKind(), a.getState().name(), time);
        String figure = a.getKind() == AlertKind.HEAT ? "heat Gini" : "capacity CV";
        decide("alert:" + a.getAlertId(), time, "alert", String.format(Locale.ROOT, "%s alert %s → %s: %s %.3f, threshold %.3f",
                a.getKind(), a.getPreviousState(), a.getState(), figure, a.getValue(), a.getThreshold()));
    }

    private void state(AlertKind kind, String state, long time) {
        Long known = stateTimes.get(kind);
        if (known == null || time >= known) {
            states.put(kind, state);
            stateTimes.put(kind, time);
        }
    }

    synchronized void onWeightCommand(WeightCommand c) {
        setWeight(c.getNode(), c.getEpoch(), c.getNewWeight());
        long epoch = c.getEpoch();
        Round round = rounds.get(epoch);
        if (round == null) {
            roundCount++;
            round = new Round("round:" + epoch, c.getIssuedAt().toEpochMilli(), c.getReason());
            rounds.put(epoch, round);
            while (rounds.size() > limits.maxDecisions()) {
                rounds.remove(rounds.keySet().iterator().next());
            }
        }
        round.changes.put(c.getNode(), String.format(Locale.ROOT, "%s %.2f→%.2f", c.getNode(), c.getOldWeight(), c.getNewWeight()));
        List<String> shown = new ArrayList<>(round.changes.values());
        String list = shown.size() <= 6 ? String.join(", ", shown)
                : String.join(", ", shown.subList(0, 6)) + ", … (" + (shown.size() - 6) + " more)";
        decide(round.key, round.time, "weights", String.format(Locale.ROOT, "weight round, epoch %d: %d node%s (%s)%s", epoch,
                shown.size(), shown.size() == 1 ? "" : "s", list, round.reason == null || round.reason.isBlank() ? "" : " — " + round.reason));
    }

    synchronized void onNodeWeight(NodeWeight w) {
        setWeight(w.getNode(), w.getEpoch(), w.getWeight());
    }

    private void setWeight(String node, long epoch, double weight) {
        long[] known = weightEpochs.get(node);
        if (known == null && weightEpochs.size() >= limits.maxNodes()) {
            return;
        }
        if (known == null || epoch >= known[0]) {
            weightEpochs.put(node, new long[] {epoch});
            weights.put(node, weight);
        }
    }

    synchronized void onMembership(NodeMembership m) {
        if (!membership.containsKey(m.getNode()) && membership.size() >= limits.maxNodes()) {
            return;
        }
        String before = membership.put(m.getNode(), m.getState().name());
        if (m.getState().name().equals(before)) {
            return;
        }
        String why = m.getReason() == null || m.getReason().isBlank() ? "" : ": " + m.getReason();
        decide("member:" + m.getNode() + ":" + m.getUpdatedAt().toEpochMilli() + ":" + m.getState(), m.getUpdatedAt().toEpochMilli(),
                "membership", "node " + m.getNode() + " " + m.getState() + " (" + m.getSource() + why + ")");
    }

    /** An operator's control (the latest record of its key counts; an older one read late changes nothing). */
    synchronized void onControl(OperatorControl c) {
        String key = ControlRecords.key(c.getCluster(), c.getControl(), c.getNode());
        OperatorControl known = controls.get(key);
        if (known != null && known.getUpdatedAt().isAfter(c.getUpdatedAt())) {
            return;
        }
        if (known == null && controls.size() >= limits.maxNodes()) {
            return;
        }
        controls.put(key, c);
        String why = c.getReason() == null || c.getReason().isBlank() ? "" : " (" + c.getReason() + ")";
        decide("control:" + key + ":" + c.getUpdatedAt().toEpochMilli(), c.getUpdatedAt().toEpochMilli(), "control",
                setting(c) + " by " + c.getOperator() + why);
    }

    /** A dry run's proposal: the newest of each app is shown. */
    synchronized void onProposal(Proposal p) {
        Proposal known = proposals.get(p.getApp());
        if (known == null || !known.getProposedAt().isAfter(p.getProposedAt())) {
            proposals.put(p.getApp(), p);
        }
    }

    /** Why the balancer or the migrator acted or did not: a line of the log. */
    synchronized void onDecision(io.skewguard.schemas.Decision d) {
        long time = d.getDecidedAt().toEpochMilli();
        decide("why:" + d.getApp() + ":" + time + ":" + d.getReason(), time, d.getApp(), d.getReason() + ": " + d.getMessage());
    }

    private static String setting(OperatorControl c) {
        return switch (c.getControl()) {
            case DRY_RUN -> "dry run " + (c.getEnabled() ? "on" : "off");
            case PAUSE -> c.getEnabled() ? "paused" : "resumed";
            case THROTTLE -> c.getEnabled() ? "throttle " + ClusterControls.rate(c.getBytesPerSec()) : "throttle auto";
            case EXCLUDE -> "node " + c.getNode() + (c.getEnabled() ? " excluded" : " included");
        };
    }

    synchronized void onSlot(SlotAssignment row) {
        routingEpoch = Math.max(routingEpoch, row.getRoutingEpoch());
    }

    synchronized void onMigrationCommand(MigrationCommand c) {
        String id = c.getMigrationId();
        if (finished.contains(id)) {
            return;
        }
        Migration m = migration(id);
        m.slot = c.getSlot();
        m.source = c.getSourceNode();
        m.target = c.getTargetNode();
        m.shardBytes = Math.max(m.shardBytes, c.getShardBytes());
        if (c.getBatchId() != null) {
            m.batch = c.getBatchId();
        }
        advance(m, c.getPhase());
        if (c.getBatchId() != null && batches.add(c.getBatchId())) {
            while (batches.size() > limits.maxDecisions()) {
                batches.remove(batches.iterator().next());
            }
            decide("batch:" + c.getBatchId(), c.getIssuedAt().toEpochMilli(), "migration",
                    "batch " + c.getBatchId() + " started (first: slot " + c.getSlot() + " " + c.getSourceNode() + " → "
                            + c.getTargetNode() + ", " + bytes(c.getShardBytes()) + ")");
        }
    }

    synchronized void onMigrationStatus(MigrationStatus s) {
        long time = s.getEventTime().toEpochMilli();
        if ("migrator".equals(s.getNode())) {
            // the migrator's own word on a repair (started, finished, why not), not a node's answer
            if (s.getMessage() != null && !s.getMessage().equals(migratorMessage)) {
                migratorMessage = s.getMessage();
                decide("migrator:" + time + ":" + s.getMessage().hashCode(), time, "migration", "migrator: " + s.getMessage());
            }
            return;
        }
        String id = s.getMigrationId();
        if (finished.contains(id)) {
            return;
        }
        Migration m = migration(id);
        if (s.getOutcome() == StepResult.FAILED) {
            decide("failed:" + id + ":" + s.getPhase(), time, "migration", "migration " + id + " " + s.getPhase() + " failed on "
                    + s.getNode() + (s.getMessage() == null ? "" : ": " + s.getMessage()));
            return;
        }
        if (s.getPhase() == MigrationPhase.COPY) {
            m.bytesCopied = Math.max(m.bytesCopied, s.getBytesCopied());
            if (m.target == null) {
                m.target = s.getNode();
            }
        }
        if (!ENDS.contains(s.getOutcome())) {
            advance(m, s.getPhase());
            return;
        }
        switch (s.getPhase()) {
            case COPY, PREPARE -> advance(m, s.getPhase());
            case COMMIT -> {
                if (!m.committed && (m.target == null || s.getNode().equals(m.target))) {
                    m.committed = true;
                    committed++;
                    long moved = Math.max(m.bytesCopied, m.shardBytes);
                    bytesMoved += moved;
                    decide("commit:" + id, time, "migration", "migration " + id + " committed: slot " + m.slot + " "
                            + m.source + " → " + m.target + ", " + bytes(moved));
                }
                advance(m, MigrationPhase.CLEANUP);
            }
            case CLEANUP -> finish(id);
            case ABORT -> {
                aborted++;
                decide("abort:" + id, time, "migration", "migration " + id + " aborted: slot " + m.slot + " " + m.source + " → "
                        + m.target + (s.getMessage() == null ? "" : " (" + s.getMessage() + ")"));
                finish(id);
            }
        }
    }

    private Migration migration(String id) {
        Migration m = running.get(id);
        if (m == null) {
            m = new Migration();
            running.put(id, m);
            while (running.size() > limits.maxMigrations()) {
                running.remove(running.keySet().iterator().next());
            }
        }
        return m;
    }

    /** Phases only move forward (COPY, PREPARE, COMMIT, CLEANUP); an abort overrides any of them. */
    private static void advance(Migration m, MigrationPhase phase) {
        if (phase == MigrationPhase.ABORT || m.phase != MigrationPhase.ABORT && phase.ordinal() > m.phase.ordinal()) {
            m.phase = phase;
        }
    }

    private void finish(String id) {
        running.remove(id);
        finished.add(id);
        while (finished.size() > limits.maxMigrations() * 4) {
            finished.remove(finished.iterator().next());
        }
    }

    private void decide(String key, long time, String kind, String text) {
        Decision d = new Decision(time, kind, text);
        decisions.put(key, d);
        while (decisions.size() > limits.maxDecisions()) {
            decisions.remove(decisions.keySet().iterator().next());
        }
    }

    synchronized ClusterSnapshot snapshot(long skippedRecords) {
        Map<String, Double> th = new LinkedHashMap<>();
        thresholds.forEach((k, v) -> th.put(k.name(), v));
        Map<String, Double> clear = new LinkedHashMap<>();
        clearLevels.forEach((k, v) -> clear.put(k.name(), v));
        Map<String, String> st = new LinkedHashMap<>();
        for (AlertKind k : AlertKind.values()) {
            st.put(k.name(), states.getOrDefault(k, "NORMAL"));
        }
        Set<String> nodes = new java.util.TreeSet<>(figures.keySet());
        nodes.addAll(weights.keySet());
        nodes.addAll(membership.keySet());
        List<NodeBar> bars = new ArrayList<>();
        for (String node : nodes) {
            if (bars.size() >= limits.maxNodes()) {
                break;
            }
            NodeFigures f = figures.get(node);
            bars.add(new NodeBar(node, f == null ? null : f.getRack(), f == null ? 0 : f.getUtilisation(), f == null ? 0 : f.getUsedBytes(),
                    f == null ? 0 : f.getTotalBytes(), weights.getOrDefault(node, 1.0), membership.get(node),
                    controls.containsKey(ControlRecords.key(cluster, io.skewguard.schemas.ControlKind.EXCLUDE, node))
                            && controls.get(ControlRecords.key(cluster, io.skewguard.schemas.ControlKind.EXCLUDE, node)).getEnabled()));
        }
        Map<String, Integer> byPhase = new LinkedHashMap<>();
        for (MigrationPhase p : MigrationPhase.values()) {
            byPhase.put(p.name(), 0);
        }
        List<RunningMigration> migrations = new ArrayList<>();
        running.forEach((id, m) -> {
            byPhase.merge(m.phase.name(), 1, Integer::sum);
            migrations.add(new RunningMigration(id, m.batch, m.slot, m.source, m.target, m.phase.name(), m.bytesCopied, m.shardBytes));
        });
        // newest read first, not by the records' times: the apps' clocks need not agree (the demo's
        // nodes and detector run on simulated time, the migrator's membership records on the wall clock)
        List<Decision> log = new ArrayList<>(decisions.values());
        Collections.reverse(log);
        ClusterControls c = ClusterControls.of(controls.values());
        Controls shown = new Controls(c.dryRun(), c.paused(), c.throttleBytesPerSec(), List.copyOf(c.excluded()), c.describe());
        List<ProposalView> dryRun = new ArrayList<>();
        for (Proposal p : proposals.values()) {
            List<String> items = new ArrayList<>();
            for (ProposedWeight w : p.getWeights()) {
                items.add(String.format(Locale.ROOT, "%s: weight %.2f → %.2f", w.getNode(), w.getOldWeight(), w.getNewWeight()));
            }
            for (ProposedMove m : p.getMoves()) {
                items.add("slot " + m.getSlot() + ": " + m.getSource() + " → " + m.getTarget() + ", " + bytes(m.getBytes()));
            }
            dryRun.add(new ProposalView(p.getApp(), p.getProposedAt().toEpochMilli(), p.getMetric(), p.getCurrent(), p.getExpected(),
                    p.getBytesToMove(), p.getFirstBatch(), items.size() > 50 ? List.copyOf(items.subList(0, 50)) : List.copyOf(items),
                    items.size()));
        }
        return new ClusterSnapshot(cluster, List.copyOf(series), th, clear, st, bars, byPhase, migrations, committed, aborted, bytesMoved,
                roundCount, routingEpoch, log, shown, dryRun, skippedRecords);
    }

    static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? n + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
