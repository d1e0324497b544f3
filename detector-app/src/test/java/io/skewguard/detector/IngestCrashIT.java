package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.SkewReport;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stage one crashes mid-stream — its ingest loop drops its buffer and abandons its consumer and
 * producer without any flush or commit — and a new instance takes over: every heat byte produced
 * is counted exactly once in the reports, the heat the crashed loop had read but not committed
 * included.
 *
 * <p>The wall-clock flush is off (1 h), so between tick changes the current tick's heat exists
 * only in the ingest buffer. The old stage one (a Kafka Streams processor) committed its input
 * offsets every commit interval independently of that buffer: such a crash lost the buffered heat
 * and the windows covering it came out short. Here the offsets are committed only in the
 * transaction that hands the heat on, so the new instance reads that input again.
 */
class IngestCrashIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), "crash", 3);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    /** Input records (both topics) not yet covered by the ingest group's committed offsets. */
    private long uncommittedInput() {
        Map<TopicPartition, Long> committed = KAFKA.broker().committedOffsets(rig.settings.ingestGroupId());
        long behind = 0;
        for (var e : KAFKA.broker().endOffsets(rig.topics.nodeWrites(), rig.topics.nodeCapacity()).entrySet()) {
            behind += e.getValue() - committed.getOrDefault(e.getKey(), 0L);
        }
        return behind;
    }

    @Test
    void heatReadButNotCommittedWhenStageOneCrashesIsCountedOnceByTheNextInstance() throws Exception {
        long t0 = rig.t0;
        DetectorApp.Running first = rig.start("first", Map.of());
        rig.produceSkew(5_300, NODES, true, true);
        // the crashed loop has read every input record ...
        while (first.ingestMetric("records-ingested-total") < rig.inputRecords) {
            Thread.sleep(20);
        }
        // ... but has not committed all of it: that heat is only in its buffer when it crashes
        long atRisk = uncommittedInput();
        assertThat(atRisk).as("input read but not committed at the crash").isPositive();

        rig.halt(first); // crash of stage one: no flush, no commit, clients abandoned
        rig.start("second", Map.of()); // a new instance (new transactional.id, empty state dir)
        rig.produceSkew(9_000, NODES, true, true); // event time to T0+14.3 s: ticks up to T0+11 s surely fire (stream time >= tick + grace)

        long last = t0 + 11_000;
        List<SkewReport> reports = rig.reportsUntil(last, Duration.ofSeconds(90));
        assertThat(reports).isNotEmpty();
        assertThat(reports.get(0).getWindowEnd().toEpochMilli()).isEqualTo(t0 + DetectorItRig.TICK);
        // one report per tick, in order, none repeated; every report holds exactly the heat produced
        // in its window: nothing lost, nothing twice
        rig.assertOnePerTickWithExactHeat(reports);
        long total = reports.stream().filter(r -> (r.getWindowEnd().toEpochMilli() - t0) % 4_000 == 3_000)
                .filter(r -> r.getWindowEnd().toEpochMilli() <= last)
                .mapToLong(SkewReport::getTotalWriteBytes).sum();
        assertThat(total).as("heat of the disjoint windows ending T0+3s, +7s, +11s (the crash was at ≈ T0+5.3s)")
                .isEqualTo(rig.expectedHeat(t0, last));
    }
}
