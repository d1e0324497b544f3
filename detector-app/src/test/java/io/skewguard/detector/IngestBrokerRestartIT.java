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
 * The broker restarts under a running detector whose ingest loop commits twenty times a second, so
 * that a transaction is open or being committed when the broker goes away. Whatever happens to it
 * (the clients reconnect and go on, or the loop aborts, drops its buffers and reads again from the
 * last committed offsets), each report holds exactly the heat produced in its window.
 */
class IngestBrokerRestartIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), "brokerrestart", 3);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    @Test
    void aBrokerRestartWhileTransactionsAreBeingCommittedLosesAndDoublesNoHeat() throws Exception {
        long t0 = rig.t0;
        DetectorApp.Running app = rig.start("only", Map.of(DetectorSettings.FLUSH_INTERVAL, "50ms"));
        rig.produceSkew(3_000, NODES, true, true);
        while (app.ingestMetric("records-ingested-total") < rig.inputRecords) {
            Thread.sleep(20);
        }
        double committedBefore = app.ingestMetric("transactions-committed-total");
        assertThat(committedBefore).as("transactions committed before the restart").isPositive();

        KAFKA.broker().restart();
        rig.produceSkew(9_000, NODES, true, true); // event time to T0+12 s: ticks up to T0+9 s surely fire

        long last = t0 + 9_000;
        List<SkewReport> reports = rig.reportsUntil(last, Duration.ofSeconds(120));
        assertThat(reports).isNotEmpty();
        assertThat(reports.get(0).getWindowEnd().toEpochMilli()).isEqualTo(t0 + DetectorItRig.TICK);
        rig.assertOnePerTickWithExactHeat(reports);
        assertThat(app.ingestMetric("transactions-committed-total"))
                .as("the same loop commits again after the restart").isGreaterThan(committedBefore);
    }
}
