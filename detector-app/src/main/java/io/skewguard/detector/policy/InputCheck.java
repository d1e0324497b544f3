package io.skewguard.detector.policy;

import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.util.Optional;
import java.util.Set;

/**
 * Validation of decoded input (docs/design.md §5). Each check returns the reason a record is refused,
 * or empty when it is acceptable. Pure; no allocation on the accepting path.
 *
 * <p>Time rule: with {@code watermark} the highest event time seen for the cluster (or
 * {@link Long#MIN_VALUE} when none yet), an event is too late when
 * {@code time < watermark - grace} and too far ahead when {@code time > watermark + maxFuture}.
 * The first event of a cluster sets its watermark and is always accepted on time.
 *
 * @param maxSlots slots are {@code 0 <= slot < maxSlots}
 * @param clusters clusters accepted; empty means any
 */
public record InputCheck(long graceMs, long maxFutureMs, int maxSlots, Set<String> clusters) {

    public Optional<String> check(WriteEvent e) {
        Optional<String> who = identity(e.getCluster(), e.getNode());
        if (who.isPresent()) {
            return who;
        }
        if (e.getBytes() < 0) {
            return Optional.of("negative bytes " + e.getBytes());
        }
        if (e.getOps() < 0) {
            return Optional.of("negative ops " + e.getOps());
        }
        if (e.getSlot() < 0 || e.getSlot() >= maxSlots) {
            return Optional.of("slot " + e.getSlot() + " outside [0, " + maxSlots + ")");
        }
        return Optional.empty();
    }

    public Optional<String> check(CapacityEvent e) {
        Optional<String> who = identity(e.getCluster(), e.getNode());
        if (who.isPresent()) {
            return who;
        }
        if (e.getTotalBytes() <= 0) {
            return Optional.of("total bytes " + e.getTotalBytes() + " not positive");
        }
        if (e.getUsedBytes() < 0) {
            return Optional.of("negative used bytes " + e.getUsedBytes());
        }
        if (e.getUsedBytes() > e.getTotalBytes()) {
            return Optional.of("used bytes " + e.getUsedBytes() + " > total bytes " + e.getTotalBytes());
        }
        for (ShardUsage s : e.getShards()) {
            if (s.getUsedBytes() < 0) {
                return Optional.of("negative used bytes " + s.getUsedBytes() + " for shard of slot " + s.getSlot());
            }
            if (s.getSlot() < 0 || s.getSlot() >= maxSlots) {
                return Optional.of("shard slot " + s.getSlot() + " outside [0, " + maxSlots + ")");
            }
        }
        return Optional.empty();
    }

    /** The time rule above. */
    public Optional<String> checkTime(long time, long watermark) {
        if (watermark == Long.MIN_VALUE) {
            return Optional.empty();
        }
        if (time < watermark - graceMs) {
            return Optional.of("late: event time " + time + " is before stream time " + watermark
                    + " minus grace " + graceMs + " ms");
        }
        if (time > watermark + maxFutureMs) {
            return Optional.of("future: event time " + time + " is more than " + maxFutureMs
                    + " ms after stream time " + watermark);
        }
        return Optional.empty();
    }

    private Optional<String> identity(String cluster, String node) {
        if (cluster == null || cluster.isBlank()) {
            return Optional.of("missing cluster id");
        }
        if (node == null || node.isBlank()) {
            return Optional.of("missing node id");
        }
        Optional<String> invalid = StateLimits.checkId("cluster", cluster).or(() -> StateLimits.checkId("node", node));
        if (invalid.isPresent()) {
            return invalid;
        }
        if (!clusters.isEmpty() && !clusters.contains(cluster)) {
            return Optional.of("unknown cluster " + cluster);
        }
        return Optional.empty();
    }
}
