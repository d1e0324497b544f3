package io.skewguard.detector.ingest;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Keeps the ingest loops of one process within {@code lead} of each other in record time, so that
 * several loops hand on heat to stage two as exactly as one loop does.
 *
 * <p><b>Why.</b> Stage two keeps one stream time per cluster, the highest event time of the partials
 * it has read, and computes a tick once that stream time has passed the tick's end by {@code grace}.
 * One loop takes all its partitions in one record-time order, so every heat it hands on later is at
 * most {@code grace} older than what it handed on before. Loops that each take their own partitions
 * at their own pace lose that: one that runs ahead would make stage two compute ticks whose heat
 * another loop has still to hand on, and that heat would be counted late or dropped.
 *
 * <p><b>How.</b> Every loop publishes its <i>floor</i>: a record time no heat it will still hand on
 * is older than (the oldest record it has taken and not yet committed, and the next record of each
 * of its partitions; {@link #UNKNOWN} while it does not know them yet). A loop takes a record only
 * if its time is at most the lowest floor of the other loops plus {@code lead} ({@link
 * Member#limit}). So the stream time any loop's partials give stage two is at most {@code lead}
 * ahead of any heat another loop still holds, and with {@code lead} at most {@code grace} no tick
 * is computed before its heat is in. An event that lies behind its own partition's next record
 * counts exactly when it is at most {@code grace - lead} behind (with one loop: {@code grace}).
 * The loop that holds the lowest floor can always take its next record, or commit to raise its
 * floor, so the loops never wait on each other for ever. Each loop also commits once its
 * uncommitted records span half the lead ({@link Member#commitSpanMs}), so that the floors keep up
 * and loops that progress alike are seldom held.
 *
 * <p><b>Partitions given up.</b> A partition a loop gives up (rebalance, stop) keeps its last floor
 * here as an <i>orphan</i> until a loop of this process is assigned it, at most {@code orphanNanos}:
 * its next owner reads it again from its committed offset, which no other loop may run past by more
 * than {@code lead}. A partition that went to another process stops holding the loops back after
 * that time. Thread-safe.
 */
public final class LoopPace {

    /** A floor while a loop does not know its partitions' next records yet: holds every other loop back. */
    public static final long UNKNOWN = Long.MIN_VALUE;
    /** A floor that holds no one back: nothing taken and uncommitted, nothing left to read. */
    public static final long NONE = Long.MAX_VALUE;

    private final long leadMs;
    private final long orphanNanos;
    private final LongSupplier nanoTime;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final Map<TopicPartition, Orphan> orphans = new ConcurrentHashMap<>();

    private record Orphan(long floor, long since) {}

    /**
     * @param leadMs how far ahead (record time) of the other loops' lowest floor a loop may take
     * @param orphanNanos how long a partition given up holds the loops back at most
     * @param nanoTime the clock orphans age by ({@code System::nanoTime})
     */
    public LoopPace(long leadMs, long orphanNanos, LongSupplier nanoTime) {
        if (leadMs < 0) {
            throw new IllegalArgumentException("lead must be >= 0, got " + leadMs);
        }
        this.leadMs = leadMs;
        this.orphanNanos = orphanNanos;
        this.nanoTime = nanoTime;
    }

    /** A pace for one loop alone: its limit is always {@link #NONE}. */
    public static LoopPace alone() {
        return new LoopPace(0, 0, System::nanoTime);
    }

    public long leadMs() {
        return leadMs;
    }

    /** A new loop, with an {@link #UNKNOWN} floor until it publishes one. */
    public Member join() {
        Member m = new Member();
        members.add(m);
        return m;
    }

    /** One loop's part. */
    public final class Member {

        private volatile long floor = UNKNOWN;

        private Member() {
        }

        /**
         * How far apart (record time) the records a loop has taken and not committed may lie before it
         * commits: half the lead, so that its floor keeps up with it and holds the others back for
         * half the lead at most; {@link #NONE} for a loop alone, whose floor holds no one.
         */
        public long commitSpanMs() {
            return members.size() > 1 ? leadMs / 2 : NONE;
        }

        public long leadMs() {
            return leadMs;
        }

        /** This loop's floor now: no heat it will still hand on lies before it. */
        public void publish(long floor) {
            this.floor = floor;
        }

        public long floor() {
            return floor;
        }

        /**
         * The newest record time this loop may take now: the lowest floor of the other loops and of
         * the orphans, plus the lead; {@link #NONE} when nothing holds it back, {@link #UNKNOWN}
         * when another loop's floor is unknown.
         */
        public long limit() {
            long min = NONE;
            for (Member m : members) {
                if (m != this) {
                    min = Math.min(min, m.floor);
                }
            }
            if (!orphans.isEmpty()) {
                long now = nanoTime.getAsLong();
                for (Map.Entry<TopicPartition, Orphan> e : orphans.entrySet()) {
                    if (now - e.getValue().since() >= orphanNanos) {
                        orphans.remove(e.getKey(), e.getValue());
                    } else {
                        min = Math.min(min, e.getValue().floor());
                    }
                }
            }
            if (min == NONE || min == UNKNOWN) {
                return min;
            }
            long limit = min + leadMs;
            return limit < min ? NONE : limit; // saturates
        }

        /** This loop gives up {@code partition}, whose next owner reads nothing older than {@code floor}. */
        public void gaveUp(TopicPartition partition, long floor) {
            if (members.size() > 1) {
                orphans.merge(partition, new Orphan(floor, nanoTime.getAsLong()),
                        (a, b) -> new Orphan(Math.min(a.floor(), b.floor()), b.since()));
            }
        }

        /** This loop now reads {@code partition}: its floor covers it from now on. */
        public void assigned(TopicPartition partition) {
            orphans.remove(partition);
        }

        /** This loop stops: its floor no longer holds the others back (what it gave up stays, as orphans). */
        public void leave() {
            members.remove(this);
        }
    }
}
