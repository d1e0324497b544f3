package io.skewguard.dashboard;

import static io.skewguard.dashboard.LoopRecords.alert;
import static io.skewguard.dashboard.LoopRecords.command;
import static io.skewguard.dashboard.LoopRecords.control;
import static io.skewguard.dashboard.LoopRecords.decision;
import static io.skewguard.dashboard.LoopRecords.plan;
import static io.skewguard.dashboard.LoopRecords.member;
import static io.skewguard.dashboard.LoopRecords.report;
import static io.skewguard.dashboard.LoopRecords.status;
import static io.skewguard.dashboard.LoopRecords.weight;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard in a real browser: records written to a real broker as the detector, balancer,
 * migrator and agents write them; the dashboard follows the topics; Debian's headless Chromium loads
 * the page, and the test reads what the page drew (the SVG charts, the node bars, the migrations, the
 * log). Then an alert state changes on the topics, and the page shows it without being reloaded.
 */
class DashboardBrowserIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String CLUSTER = "prod";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Instant T0 = Instant.now().minus(Duration.ofHours(1));

    private final String registry = "mock://dashboard-it-" + UUID.randomUUID();
    private final Topics topics = new Topics("d" + UUID.randomUUID().toString().substring(0, 8) + ".");

    @Test
    void thePageDrawsTheLoopAndShowsAnAlertChangeWithoutReload() throws Exception {
        HeadlessChromium.binary(); // fails at once, saying how to install it, when Chromium is missing
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.weightCommands(), topics.migrationCommands(),
                topics.migrationStatus(), topics.proposals(), topics.decisions());
        KAFKA.broker().createCompactedTopics(1, topics.nodeWeights(), topics.slotTable(), topics.membership(), topics.control());
        try (KafkaProducer<String, SpecificRecord> producer = KAFKA.broker().producer(new StringSerializer(), anySerializer())) {
            for (int m = 0; m < 30; m++) {
                double gini = 0.2 + m * 0.01;
                send(producer, topics.reports(), report(CLUSTER, T0.plus(Duration.ofMinutes(m)), gini, 0.3 - m * 0.002,
                        gini > 0.45 ? AlertState.OBSERVING : AlertState.NORMAL, AlertState.NORMAL, 6));
            }
            send(producer, topics.alerts(), alert(CLUSTER, AlertKind.HEAT, AlertState.NORMAL, AlertState.OBSERVING, 0.46, 0.45,
                    T0.plus(Duration.ofMinutes(26))));
            send(producer, topics.weightCommands(), weight(CLUSTER, "n1", 1, 1.0, 0.8, T0.plus(Duration.ofMinutes(27))));
            send(producer, topics.migrationCommands(), command(CLUSTER, "m1", "b1", MigrationPhase.COPY, "n4", 9, "n1", "n4",
                    4_000_000, T0.plus(Duration.ofMinutes(28))));
            send(producer, topics.migrationStatus(), status(CLUSTER, "m1", "n4", MigrationPhase.COPY, StepResult.PROGRESS, 1_000_000,
                    T0.plus(Duration.ofMinutes(29))));
            send(producer, topics.membership(), member(CLUSTER, "n6", MembershipState.DRAINING, "retiring",
                    T0.plus(Duration.ofMinutes(29))));
            send(producer, topics.control(), control(CLUSTER, ControlKind.DRY_RUN, true, null, T0.plus(Duration.ofMinutes(29))));
            send(producer, topics.control(), control(CLUSTER, ControlKind.EXCLUDE, true, "n5", T0.plus(Duration.ofMinutes(29))));
            send(producer, topics.proposals(), plan(CLUSTER, T0.plus(Duration.ofMinutes(30)), 3));
            send(producer, topics.decisions(), decision(CLUSTER, "migrator", "DRY_RUN", "dry run: a plan of 3 moves",
                    T0.plus(Duration.ofMinutes(30))));
            producer.flush();

            Properties consumer = new Properties();
            consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
            try (Dashboard dashboard = Dashboard.start(consumer, Map.of("schema.registry.url", registry), topics, null,
                    ViewLimits.defaults(), "127.0.0.1", 0);
                 HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
                assertThat(dashboard.url()).startsWith("http://127.0.0.1:");
                browser.navigate(dashboard.url());

                // the charts render with data: one line per chart through all 30 reports, the threshold, the alert band
                browser.awaitValue("document.querySelector('#heat-chart path.series')?.getAttribute('data-points')",
                        v -> "30".equals(v.asText()), WAIT);
                assertThat(points(browser, "#heat-chart path.series")).isEqualTo(30);
                assertThat(points(browser, "#cv-chart path.series")).isEqualTo(30);
                assertThat(browser.evaluate("document.querySelectorAll('#heat-chart line.threshold').length").asInt()).isEqualTo(1);
                assertThat(browser.evaluate("document.querySelectorAll('#heat-chart rect.band-OBSERVING').length").asInt()).isEqualTo(1);
                // a bar per node, utilisation and weight factor as the records say
                assertThat(browser.evaluate("document.querySelectorAll('#nodes .node').length").asInt()).isEqualTo(6);
                assertThat(browser.evaluate("document.querySelector('#nodes .node[data-node=n1] .bar.util > i').style.width").asText())
                        .isEqualTo("90%");
                assertThat(browser.evaluate("document.querySelector('#nodes .node[data-node=n1] .bar.weight span').textContent").asText())
                        .isEqualTo("× 0.80");
                assertThat(browser.evaluate("document.querySelector('#nodes .node[data-node=n6] .name small').textContent").asText())
                        .isEqualTo("draining");
                // the running migration with its copy progress, and the decision log
                assertThat(browser.evaluate("document.querySelector('#phases [data-phase=COPY] b').textContent").asText()).isEqualTo("1");
                assertThat(browser.evaluate("document.querySelector('#migrations tr[data-migration=m1] .bar > i').style.width").asText())
                        .isEqualTo("25%");
                assertThat(browser.evaluate("Array.from(document.querySelectorAll('#decisions .text')).map(e => e.textContent).join('\\n')")
                        .asText()).contains("HEAT alert NORMAL → OBSERVING", "weight round, epoch 1", "batch b1 started",
                        "node n6 DRAINING");
                assertThat(browser.evaluate("document.getElementById('heat-state').textContent").asText()).isEqualTo("heat OBSERVING");
                // the operators' controls and the dry run's proposal
                assertThat(browser.evaluate("Array.from(document.querySelectorAll('#controls .badge')).map(e => e.textContent).join('|')")
                        .asText()).isEqualTo("dry run|excluded n5");
                assertThat(browser.evaluate("document.querySelector('#nodes .node[data-node=n5] .name small').textContent").asText())
                        .isEqualTo("excluded");
                assertThat(browser.evaluate("document.getElementById('proposals-panel').hidden").asBoolean()).isFalse();
                assertThat(browser.evaluate("document.querySelectorAll('#proposals .proposal[data-app=migrator] li').length").asInt())
                        .isEqualTo(3);
                assertThat(browser.evaluate("document.querySelector('#proposals h3').textContent").asText())
                        .contains("capacity CV 0.3100 → 0.0800");
                assertThat(browser.evaluate("Array.from(document.querySelectorAll('#decisions .text')).map(e => e.textContent).join('\\n')")
                        .asText()).contains("DRY_RUN: dry run: a plan of 3 moves", "dry run on by alice");

                // an alert state change after the page loaded: shown without reload (the page's own mark survives)
                browser.evaluate("window.loadedOnce = 'still this page'");
                send(producer, topics.alerts(), alert(CLUSTER, AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0.49, 0.45,
                        T0.plus(Duration.ofMinutes(31))));
                producer.flush();
                browser.awaitValue("document.getElementById('heat-state').textContent", v -> "heat CONFIRMED".equals(v.asText()), WAIT);
                assertThat(browser.evaluate("window.loadedOnce").asText()).isEqualTo("still this page");
                assertThat(browser.evaluate("document.getElementById('heat-state').dataset.state").asText()).isEqualTo("CONFIRMED");
                assertThat(browser.evaluate("document.querySelector('#decisions .text').textContent").asText())
                        .isEqualTo("HEAT alert OBSERVING → CONFIRMED: heat Gini 0.490, threshold 0.450");
            }
        }
    }

    private static int points(HeadlessChromium browser, String selector) throws Exception {
        JsonNode d = browser.evaluate("document.querySelector('" + selector + "').getAttribute('d')");
        return d.asText().split("[ML]").length - 1;
    }

    private static void send(KafkaProducer<String, SpecificRecord> producer, String topic, SpecificRecord value) throws Exception {
        producer.send(new ProducerRecord<>(topic, CLUSTER, value)).get();
    }

    /** Each record with its own class's serde, as each app writes it. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private Serializer<SpecificRecord> anySerializer() {
        Map<Class<?>, SchemaRegistrySerde> serdes = new java.util.concurrent.ConcurrentHashMap<>();
        return (topic, value) -> serdes.computeIfAbsent(value.getClass(),
                type -> SchemaRegistrySerde.of((Class) type, Map.of("schema.registry.url", registry), false)).serializer()
                .serialize(topic, value);
    }
}
