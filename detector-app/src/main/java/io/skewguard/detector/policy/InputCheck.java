package io.skewguard.detector.policy;

import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.util.Optional;
import java.util.Set;

/**
 * Validation of decoded input (docs/design.md §5). Each check returns the reason a record is refused,
 * or empty when it is acceptable. A reason starts with its code ({@code invalid}, {@code unknown-cluster},
 * {@code future}, {@code late}) and quotes ids cut to a hundred characters ({@link DeadLetter#quote}). Pure; no allocation on the accepting path.
 *
 * <p>Time rule (docs/detector.md, "Event time"): an event is refused as {@code future} when its
 * time lies more than {@code max-future-skew} ahead of this process's clock, and as {@code late}
 * when it lies more than {@code grace} before the cluster's stream time. Nothing else about its
 * time is refused: stream time is only ever a lower bound for what is late, never for what may
 * come, so an early (or far-past) event cannot make later ordinary events look too far ahead.
 *
 * @param maxSlots slots are {@code 0 <= slot < maxSlots}
 * @param clusters clusters accepted; empty means any
 */
public record InputCheck(long graceMs, FutureSkew futureSkew, int maxSlots, Set<String> clusters) {

    public Optional<String> check(WriteEvent e) {
        Optional<String> who = identity(e.getCluster(), e.getNode());
        if (who.isPresent()) {
            return who;
        }
        if (e.getBytes() < 0) {
            return Optional.of("invalid: negative bytes " + e.getBytes());
        }
        if (e.getOps() < 0) {
            return Optional.of("invalid: negative ops " + e.getOps());
        }
        if (e.getSlot() < 0 || e.getSlot() >= maxSlots) {
            return Optional.of("invalid: slot " + e.getSlot() + " outside [0, " + maxSlots + ")");
        }
        return Optional.empty();
    }

    public Optional<String> check(CapacityEvent e) {
        Optional<String> who = identity(e.getCluster(), e.getNode());
        if (who.isPresent()) {
            return who;
        }
        if (e.getTotalBytes() <= 0) {
            return Optional.of("invalid: total bytes " + e.getTotalBytes() + " not positive");
        }
        if (e.getUsedBytes() < 0) {
            return Optional.of("invalid: negative used bytes " + e.getUsedBytes());
        }
        if (e.getUsedBytes() > e.getTotalBytes()) {
            return Optional.of("invalid: used bytes " + e.getUsedBytes() + " > total bytes " + e.getTotalBytes());
        }
        for (ShardUsage s : e.getShards()) {
            if (s.getUsedBytes() < 0) {
                return Optional.of("invalid: negative used bytes " + s.getUsedBytes() + " for shard of slot " + s.getSlot());
            }
            if (s.getSlot() < 0 || s.getSlot() >= maxSlots) {
                return Optional.of("invalid: shard slot " + s.getSlot() + " outside [0, " + maxSlots + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * The time rule above for an event at {@code time} read at {@code now} (this process's clock),
     * with {@code watermark} the cluster's stream time ({@link Long#MIN_VALUE} before its first event).
     */
    public Optional<String> checkTime(long time, long watermark, long now) {
        Optional<String> future = futureSkew.check("event time", time, now);
        if (future.isPresent()) {
            return future;
        }
        if (watermark != Long.MIN_VALUE && time < watermark - graceMs) {
            return Optional.of("late: event time " + time + " is before stream time " + watermark
                    + " minus grace " + graceMs + " ms");
        }
        return Optional.empty();
    }

    private Optional<String> identity(String cluster, String node) {
        if (cluster == null || cluster.isBlank()) {
            return Optional.of("invalid: missing cluster id");
        }
        if (node == null || node.isBlank()) {
            return Optional.of("invalid: missing node id");
        }
        Optional<String> invalid = StateLimits.checkId("cluster", cluster);
        if (invalid.isEmpty()) {
            invalid = StateLimits.checkId("node", node);
        }
        if (invalid.isPresent()) {
            return invalid;
        }
        if (!clusters.isEmpty() && !clusters.contains(cluster)) {
            return Optional.of("unknown-cluster: cluster " + DeadLetter.quote(cluster) + " is not one of the clusters served");
        }
        return Optional.empty();
    }
}
