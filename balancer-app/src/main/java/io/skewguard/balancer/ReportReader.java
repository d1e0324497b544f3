package io.skewguard.balancer;

import static io.skewguard.schemas.DeadLetter.quote;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks the detector's records before the controller sees them and turns a report into a
 * {@link LoadSnapshot}. Everything that fails here is dead-lettered, not thrown at Streams. Every
 * reason starts with its code ({@code invalid}, {@code unknown-cluster}, {@code future},
 * {@code stale}) and quotes ids cut to a hundred characters.
 *
 * <p>A report is checked whole, not only the figures the controller reads: one whose other figures
 * are impossible (a NaN capacity CV, negative bytes, a window that ends before it starts) comes
 * from a broken or forged writer, and letting it through would take its cluster's round from the
 * good report after it.
 *
 * <p>Times the controller keeps ({@code windowEnd} as the last round's time, {@code since} as the
 * episode it repairs) may lie at most {@code max-future-skew} ahead of this process's clock: one
 * record further ahead would otherwise hold every later round back as too soon, or every later
 * confirmation as an episode already seen. Such a record is refused as {@code future}. A report or
 * alert more than {@code max-event-age} behind the clock describes a load long gone: refused as
 * {@code stale}, so that it neither runs a round nor opens an episode.
 */
final class ReportReader {

    private final Set<String> knownClusters;
    private final FutureSkew futureSkew;
    private final long maxAgeMs;

    /**
     * @param knownClusters clusters this balancer serves; empty accepts every cluster
     * @param futureSkew how far ahead of the clock a time may lie
     * @param maxAge how far behind the clock a time may lie
     */
    ReportReader(Set<String> knownClusters, FutureSkew futureSkew, Duration maxAge) {
        this.knownClusters = Set.copyOf(knownClusters);
        this.futureSkew = futureSkew;
        this.maxAgeMs = maxAge.toMillis();
    }

    /** @param now this process's clock (epoch ms) */
    LoadSnapshot snapshot(String key, SkewReport report, long now) throws RejectedInput {
        String cluster = report.getCluster();
        checkCluster(key, cluster);
        String of = "report of cluster " + quote(cluster);
        long end = report.getWindowEnd().toEpochMilli();
        checkTime("windowEnd", end, now);
        if (end < report.getWindowStart().toEpochMilli()) {
            throw invalid(of + " has windowEnd " + report.getWindowEnd() + " before windowStart " + report.getWindowStart());
        }
        if (report.getNodes().isEmpty()) {
            throw invalid(of + " has zero nodes");
        }
        double gini = report.getHeatGini();
        if (!Double.isFinite(gini) || gini < 0 || gini > 1) {
            throw invalid(of + " has heat Gini " + gini + ", not in [0, 1]");
        }
        double cv = report.getCapacityCv();
        if (!Double.isFinite(cv) || cv < 0) {
            throw invalid(of + " has capacity CV " + cv + ", not a finite number >= 0");
        }
        if (report.getTotalWriteBytes() < 0) {
            throw invalid(of + " has negative totalWriteBytes " + report.getTotalWriteBytes());
        }
        List<Long> slotHeat = report.getSlotHeat();
        for (int slot = 0; slot < slotHeat.size(); slot++) {
            if (slotHeat.get(slot) < 0) {
                throw invalid(of + " has negative heat " + slotHeat.get(slot) + " for slot " + slot);
            }
        }
        List<NodeLoad> loads = new ArrayList<>(report.getNodes().size());
        Set<String> seen = new HashSet<>();
        for (NodeFigures figures : report.getNodes()) {
            String node = figures.getNode();
            Optional<String> badId = StateLimits.checkId("node", node);
            if (badId.isPresent()) {
                throw new RejectedInput(badId.get() + " in " + of);
            }
            String which = "node " + quote(node) + " of cluster " + quote(cluster);
            if (!seen.add(node)) {
                throw invalid(of + " lists node " + quote(node) + " twice");
            }
            if (figures.getHeatBytes() < 0 || figures.getUsedBytes() < 0 || figures.getTotalBytes() < 0) {
                throw invalid(which + " has negative bytes");
            }
            if (figures.getTotalBytes() > 0 && figures.getUsedBytes() > figures.getTotalBytes()) {
                throw invalid(which + " has used > total bytes");
            }
            double utilisation = figures.getUtilisation();
            if (!Double.isFinite(utilisation) || utilisation < 0) {
                throw invalid(which + " has utilisation " + utilisation + ", not a finite number >= 0");
            }
            loads.add(new NodeLoad(node, figures.getHeatBytes(), figures.getTotalBytes()));
        }
        return new LoadSnapshot(cluster, end, gini, loads);
    }

    /** @param now this process's clock (epoch ms) */
    void checkAlert(String key, SkewAlert alert, long now) throws RejectedInput {
        checkCluster(key, alert.getCluster());
        String of = "alert " + quote(alert.getAlertId());
        long since = alert.getSince().toEpochMilli();
        Optional<String> future = futureSkew.check("since", since, now);
        if (future.isPresent()) {
            throw new RejectedInput(future.get());
        }
        checkTime("eventTime", alert.getEventTime().toEpochMilli(), now);
        if (alert.getSince().isAfter(alert.getEventTime())) {
            throw invalid(of + " has since " + alert.getSince() + " after its eventTime " + alert.getEventTime());
        }
        // a confirmation follows the start of its episode by a few ticks; a CLEARED alert may end a long one
        if (alert.getState() == AlertState.CONFIRMED) {
            checkAge("since", since, now);
        }
        if (!Double.isFinite(alert.getValue()) || alert.getValue() < 0) {
            throw invalid(of + " has value " + alert.getValue() + ", not a finite number >= 0");
        }
        if (!Double.isFinite(alert.getThreshold()) || alert.getThreshold() < 0) {
            throw invalid(of + " has threshold " + alert.getThreshold() + ", not a finite number >= 0");
        }
    }

    private void checkTime(String what, long time, long now) throws RejectedInput {
        Optional<String> future = futureSkew.check(what, time, now);
        if (future.isPresent()) {
            throw new RejectedInput(future.get());
        }
        checkAge(what, time, now);
    }

    private void checkAge(String what, long time, long now) throws RejectedInput {
        if (time < now - maxAgeMs) {
            throw new RejectedInput("stale: " + what + " " + Instant.ofEpochMilli(time) + " is "
                    + Durations.format(Duration.ofMillis(now - time))
                    + " behind this process's clock (" + Instant.ofEpochMilli(now) + "; max-event-age "
                    + Durations.format(Duration.ofMillis(maxAgeMs)) + ")");
        }
    }

    private void checkCluster(String key, String cluster) throws RejectedInput {
        if (cluster == null || cluster.isEmpty()) {
            throw invalid("record without cluster id");
        }
        if (!cluster.equals(key)) {
            throw invalid("record key " + quote(key) + " is not its cluster " + quote(cluster));
        }
        Optional<String> badId = StateLimits.checkId("cluster", cluster);
        if (badId.isPresent()) {
            throw new RejectedInput(badId.get());
        }
        if (!knownClusters.isEmpty() && !knownClusters.contains(cluster)) {
            throw new RejectedInput("unknown-cluster: cluster " + quote(cluster) + " is not one of the clusters served");
        }
    }

    private static RejectedInput invalid(String detail) {
        return new RejectedInput("invalid: " + detail);
    }
}
