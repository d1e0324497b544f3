package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.SkewReport;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Input partitions move between ingest loops mid-stream: a second instance joins the first (two
 * ingest loops) and later leaves. Each loop hands on and commits what it buffered before giving
 * partitions up, so every report still holds exactly the heat produced in its window. (The wall
 * clock flush is off, so between tick changes the current tick's heat is only in the buffers.)
 */
class IngestRebalanceIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String[] NODES = {"n1", "n2", "n3", "n4", "n5", "n6"};

    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), "rebalance", 4);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    private DetectorApp.Running start(String stateSubDir, int ingestThreads) throws InterruptedException {
        return rig.start(stateSubDir, Map.of(DetectorSettings.INGEST_THREADS, Integer.toString(ingestThreads)));
    }

    @Test
    void partitionsMovingBetweenIngestLoopsLoseAndDoubleNothing() throws Exception {
        start("first", 2);
        rig.produceSkew(4_000, NODES, true, false);
        DetectorApp.Running second = start("second", 1); // the group now spreads 8 partitions over 3 loops
        rig.produceSkew(4_000, NODES, true, false);
        rig.stop(second); // its loop commits and leaves: its partitions go back to the first instance's loops
        rig.produceSkew(5_000, NODES, true, false);

        long last = rig.t0 + 10_000;
        List<SkewReport> reports = rig.reportsUntil(last, Duration.ofSeconds(90));
        assertThat(reports.get(0).getWindowEnd().toEpochMilli()).isEqualTo(rig.t0 + DetectorItRig.TICK);
        rig.assertOnePerTickWithExactHeat(reports);
    }
}
