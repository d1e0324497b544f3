package io.skewguard.migrator;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/** Turns a {@link MigratorOutput.Refused} into the dead-letter record: its bytes, with its headers. */
final class RefusedValue implements FixedKeyProcessor<String, MigratorOutput, byte[]> {

    private FixedKeyProcessorContext<String, byte[]> context;

    @Override
    public void init(FixedKeyProcessorContext<String, byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, MigratorOutput> record) {
        MigratorOutput.Refused refused = (MigratorOutput.Refused) record.value();
        context.forward(record.withValue(refused.value()).withHeaders(refused.headers()));
    }
}
