package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.balancer.policy.Round;
import io.skewguard.balancer.policy.WeightController;
import io.skewguard.balancer.policy.WeightPolicy;
import io.skewguard.runtime.streams.DeadLetters;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;

/**
 * A report whose weight round throws the same way every time: it goes to the dead-letter topic
 * with its reason and the next report is processed, instead of killing the stream thread (and,
 * replaced, every thread after it, until the process exits).
 */
class BalancerPoisonTest {

    private static final long MINUTE = 60_000;

    @Test
    void aReportWhoseRoundAlwaysThrowsIsDeadLetteredWithItsReasonAndTheNextReportIsProcessed() {
        String scope = "balancer-poison-" + UUID.randomUUID();
        BalancerSettings settings = BalancerSettings.of(Map.of(
                "schema.registry.url", "mock://" + scope,
                "clusters", "poisoned,good",
                "state.dir", "target/balancer-state/" + scope,
                // the reports lie in 1970 while the driver's clock is now: none is too old here
                BalancerSettings.MAX_EVENT_AGE, "36500d"));
        List<String> roundsRun = new ArrayList<>();
        WeightPolicy controller = new WeightController(settings.controller());
        WeightPolicy failingOnOneCluster = new WeightPolicy() {
            @Override
            public ControllerState onHeatConfirmed(ControllerState state, long since) {
                return controller.onHeatConfirmed(state, since);
            }

            @Override
            public Round onReport(ControllerState state, LoadSnapshot snapshot) {
                if (snapshot.cluster().equals("poisoned")) {
                    throw new IllegalStateException("no round for " + snapshot.cluster());
                }
                roundsRun.add(snapshot.cluster());
                return controller.onReport(state, snapshot);
            }
        };
        List<ProducerRecord<byte[], byte[]>> dlq = new ArrayList<>();
        Properties props = PoisonPills.writingTo(settings.streamsProperties(),
                new DeadLetters(settings.topics().dlq(), dlq::add));
        try (TopologyTestDriver driver = new TopologyTestDriver(BalancerTopology.build(settings, failingOnOneCluster), props);
                SchemaRegistrySerde<SkewReport> reports = SchemaRegistrySerde.of(SkewReport.class, settings.serdeConfig(), false)) {
            TestInputTopic<byte[], byte[]> in = driver.createInputTopic(settings.topics().reports(),
                    new ByteArraySerializer(), new ByteArraySerializer());
            for (String cluster : List.of("poisoned", "good")) {
                SkewReport report = BalancerHarness.report(new LoadSnapshot(cluster, MINUTE, 0.5,
                        List.of(new NodeLoad("a", 900, 100), new NodeLoad("b", 100, 100))));
                in.pipeInput(cluster.getBytes(StandardCharsets.UTF_8),
                        reports.serializer().serialize(settings.topics().reports(), report));
            }

            assertThat(dlq).hasSize(1);
            assertThat(new String(dlq.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("poisoned");
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.sourceTopic()).isEqualTo(settings.topics().reports());
            assertThat(letter.sourceOffset()).isEqualTo(0);
            assertThat(letter.reason()).startsWith("poison: IllegalStateException: no round for poisoned");
            assertThat(roundsRun).as("the report after it").containsExactly("good");
        } finally {
            MockSchemaRegistry.drop(scope);
        }
    }
}
