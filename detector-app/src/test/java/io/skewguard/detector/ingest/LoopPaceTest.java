package io.skewguard.detector.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class LoopPaceTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final LoopPace pace = new LoopPace(500, 10_000, nanos::get);

    /** Loops joined to {@link #pace}, each with the floor given. */
    private LoopPace.Member[] loops(long... floors) {
        LoopPace.Member[] loops = new LoopPace.Member[floors.length];
        for (int i = 0; i < floors.length; i++) {
            loops[i] = pace.join();
            loops[i].publish(floors[i]);
        }
        return loops;
    }

    @Test
    void aLoopAloneIsNeverHeldBack() {
        LoopPace.Member only = LoopPace.alone().join();
        only.publish(LoopPace.UNKNOWN);
        assertThat(only.limit()).isEqualTo(LoopPace.NONE);
        only.gaveUp(new TopicPartition("w", 0), 5);
        assertThat(only.limit()).as("a partition given up by the only loop holds no one").isEqualTo(LoopPace.NONE);
    }

    @Test
    void aLoopMayTakeUpToTheOthersLowestFloorPlusTheLead() {
        LoopPace.Member a = pace.join();
        LoopPace.Member b = pace.join();
        LoopPace.Member c = pace.join();
        assertThat(a.limit()).as("the others' floors not known yet").isEqualTo(LoopPace.UNKNOWN);
        b.publish(10_000);
        c.publish(12_000);
        a.publish(3_000);
        assertThat(a.limit()).isEqualTo(10_500);
        assertThat(b.limit()).as("a's own floor does not hold a").isEqualTo(3_500);
        assertThat(c.limit()).isEqualTo(3_500);
        c.publish(LoopPace.NONE);
        b.publish(LoopPace.NONE);
        assertThat(a.limit()).as("nothing left to read elsewhere").isEqualTo(LoopPace.NONE);
        a.publish(Long.MAX_VALUE - 100);
        assertThat(b.limit()).as("saturates instead of wrapping").isEqualTo(LoopPace.NONE);
    }

    @Test
    void theLoopWithTheLowestFloorIsHeldByNoneOfTheOthersFloors() {
        LoopPace.Member a = loops(7_000, 9_000)[0];
        assertThat(a.limit()).as("a's next record (its floor) is within its limit").isGreaterThanOrEqualTo(7_000);
    }

    @Test
    void aPartitionGivenUpHoldsTheOthersUntilALoopReadsItOrItsHoldEnds() {
        LoopPace.Member[] loops = loops(50_000, 60_000, 70_000);
        LoopPace.Member a = loops[0];
        LoopPace.Member b = loops[1];
        LoopPace.Member c = loops[2];
        TopicPartition p = new TopicPartition("writes", 2);
        c.gaveUp(p, 20_000);
        c.publish(LoopPace.NONE);
        assertThat(a.limit()).isEqualTo(20_500);
        b.assigned(p);
        assertThat(a.limit()).as("b reads it now: b's floor covers it").isEqualTo(60_500);

        c.gaveUp(p, 30_000);
        c.gaveUp(p, 25_000);
        assertThat(a.limit()).as("given up twice: the lower floor").isEqualTo(25_500);
        nanos.addAndGet(9_999);
        assertThat(a.limit()).isEqualTo(25_500);
        nanos.addAndGet(1);
        assertThat(a.limit()).as("went to another process: holds no longer").isEqualTo(60_500);
    }

    @Test
    void aLoopThatLeftHoldsNoOne() {
        LoopPace.Member[] loops = loops(1_000, LoopPace.UNKNOWN);
        LoopPace.Member a = loops[0];
        LoopPace.Member b = loops[1];
        assertThat(a.limit()).isEqualTo(LoopPace.UNKNOWN);
        b.leave();
        assertThat(a.limit()).isEqualTo(LoopPace.NONE);
    }

    @Test
    void loopsThatShareAPaceCommitEveryHalfLeadAndALoopAloneNeverForIt() {
        LoopPace.Member a = pace.join();
        assertThat(a.commitSpanMs()).as("alone so far").isEqualTo(LoopPace.NONE);
        LoopPace.Member b = pace.join();
        assertThat(a.commitSpanMs()).isEqualTo(250);
        assertThat(b.commitSpanMs()).isEqualTo(250);
        assertThat(LoopPace.alone().join().commitSpanMs()).isEqualTo(LoopPace.NONE);
    }

    @Test
    void aNegativeLeadIsRefused() {
        assertThatThrownBy(() -> new LoopPace(-1, 0, System::nanoTime)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lead must be >= 0");
    }
}
