package io.skewguard.migrator;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Serde of the repartition topic that brings every input of one cluster to one task: one tag byte
 * (which input), then the record in the registry wire format of its own class, so the internal topic
 * evolves like the public ones. Each class has its own subject, {@code <topic>.<kind>-value}
 * ({@code .alert}, {@code .report}, {@code .capacity}, {@code .status}, {@code .membership},
 * {@code .control}), since one subject holds
 * one record type's history.
 */
final class InputEnvelopeSerde implements Serde<MigratorInput> {

    private static final byte ALERT = 1;
    private static final byte REPORT = 2;
    private static final byte CAPACITY = 3;
    private static final byte STATUS = 4;
    private static final byte MEMBERSHIP = 5;
    private static final byte CONTROL = 6;

    private final Serde<SkewAlert> alerts;
    private final Serde<SkewReport> reports;
    private final Serde<CapacityEvent> capacity;
    private final Serde<MigrationStatus> status;
    private final Serde<io.skewguard.schemas.NodeMembership> membership;
    private final Serde<io.skewguard.schemas.OperatorControl> control;

    InputEnvelopeSerde(MigratorSerdes serdes) {
        this.alerts = serdes.alert();
        this.reports = serdes.report();
        this.capacity = serdes.capacity();
        this.status = serdes.status();
        this.membership = serdes.membership();
        this.control = serdes.control();
    }

    @Override
    public Serializer<MigratorInput> serializer() {
        return (topic, input) -> {
            if (input == null) {
                return null;
            }
            byte tag;
            byte[] body;
            if (input instanceof MigratorInput.Alert a) {
                tag = ALERT;
                body = alerts.serializer().serialize(topic + ".alert", a.value());
            } else if (input instanceof MigratorInput.Report r) {
                tag = REPORT;
                body = reports.serializer().serialize(topic + ".report", r.value());
            } else if (input instanceof MigratorInput.Capacity c) {
                tag = CAPACITY;
                body = capacity.serializer().serialize(topic + ".capacity", c.value());
            } else if (input instanceof MigratorInput.Status s) {
                tag = STATUS;
                body = status.serializer().serialize(topic + ".status", s.value());
            } else if (input instanceof MigratorInput.Membership m) {
                tag = MEMBERSHIP;
                body = membership.serializer().serialize(topic + ".membership", m.value());
            } else if (input instanceof MigratorInput.Control c) {
                tag = CONTROL;
                body = control.serializer().serialize(topic + ".control", c.value());
            } else {
                throw new SerializationException("rejected records never go to the repartition topic");
            }
            byte[] out = new byte[body.length + 1];
            out[0] = tag;
            System.arraycopy(body, 0, out, 1, body.length);
            return out;
        };
    }

    @Override
    public Deserializer<MigratorInput> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null || bytes.length == 0) {
                return null;
            }
            byte[] body = Arrays.copyOfRange(bytes, 1, bytes.length);
            return switch (bytes[0]) {
                case ALERT -> new MigratorInput.Alert(alerts.deserializer().deserialize(topic + ".alert", body));
                case REPORT -> new MigratorInput.Report(reports.deserializer().deserialize(topic + ".report", body));
                case CAPACITY -> new MigratorInput.Capacity(capacity.deserializer().deserialize(topic + ".capacity", body));
                case STATUS -> new MigratorInput.Status(status.deserializer().deserialize(topic + ".status", body));
                case MEMBERSHIP -> new MigratorInput.Membership(membership.deserializer().deserialize(topic + ".membership", body));
                case CONTROL -> new MigratorInput.Control(control.deserializer().deserialize(topic + ".control", body));
                default -> throw new SerializationException(topic + ": unknown input tag " + bytes[0]);
            };
        };
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        // the inner serdes come configured
    }
}
