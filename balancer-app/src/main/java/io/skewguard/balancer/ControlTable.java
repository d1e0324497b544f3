package io.skewguard.balancer;

import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' controls as the balancer holds them: a global store of the control topic (every
 * cluster's controls in every instance, restored before any report is processed, and restored
 * through this processor, so a restart sees what was taken before). A record is taken only when
 * {@link ControlRecords#problem} finds nothing wrong; a refused one (undecodable, invalid, or not
 * signed by a known operator) is logged, and the control keeps its setting — the
 * migrator, which reads the same topic, dead-letters it with the same reason. The weight rounds
 * read a cluster's controls from the store with {@link #controls}.
 */
final class ControlTable implements Processor<byte[], byte[], Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(ControlTable.class);

    private final String storeName;
    private final String topic;
    private final Map<String, Object> serdeConfig;
    private final NodeKeys operatorKeys;
    private KeyValueStore<String, byte[]> store;
    private SchemaRegistrySerde<OperatorControl> serde;

    ControlTable(String storeName, String topic, Map<String, Object> serdeConfig, NodeKeys operatorKeys) {
        this.storeName = storeName;
        this.topic = topic;
        this.serdeConfig = serdeConfig;
        this.operatorKeys = operatorKeys;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.store = context.getStateStore(storeName);
        this.serde = SchemaRegistrySerde.of(OperatorControl.class, serdeConfig, false);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (key == null || record.value() == null) {
            refuse(key, "invalid: a control record has a key and a value (controls are switched off by records, not tombstones)");
            return;
        }
        OperatorControl control;
        try {
            control = serde.deserializer().deserialize(topic, record.headers(), record.value());
        } catch (RegistryUnavailableException e) {
            throw e; // not the record's fault: the global thread fails and Kafka Streams retries
        } catch (SerializationException e) {
            refuse(key, "undecodable: " + e.getMessage());
            return;
        }
        var problem = ControlRecords.problem(key, control, operatorKeys, record.headers(), topic, record.key(), record.value());
        if (problem.isPresent()) {
            refuse(key, problem.get());
            return;
        }
        store.put(key, record.value());
    }

    private void refuse(String key, String reason) {
        LOG.warn("control record {} on {} refused, the control keeps its setting: {}", key, topic, reason);
    }

    /** The controls of {@code cluster} in {@code store} (records there were checked when they were taken). */
    static ClusterControls controls(KeyValueStore<String, byte[]> store, String cluster, SchemaRegistrySerde<OperatorControl> serde,
            String topic) {
        List<OperatorControl> records = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = store.prefixScan(cluster + "/", new StringSerializer())) {
            while (it.hasNext()) {
                OperatorControl c = serde.deserializer().deserialize(topic, it.next().value);
                if (c.getCluster().equals(cluster)) { // the prefix of cluster a also matches a/b... were it allowed
                    records.add(c);
                }
            }
        }
        return ClusterControls.of(records);
    }

    @Override
    public void close() {
        if (serde != null) {
            serde.close();
        }
    }
}
