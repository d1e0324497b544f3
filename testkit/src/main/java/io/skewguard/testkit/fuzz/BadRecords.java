package io.skewguard.testkit.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * A seeded generator of records that an app must dead-letter (the fuzz corpus, docs/reliability.md).
 *
 * <p>For a {@link FuzzTarget} it cycles through the cases, so that even a short corpus holds every
 * one: each structural kind ({@link BadRecord.Kind}) once, then each contract violation of the
 * record type ({@link Invalid}) once, and again; the seed decides the random parts (bytes, lengths,
 * schema ids, cut points). The same seed gives the same corpus, so a failure can be replayed.
 *
 * <p>Wire-format defects start from a good record written by the target's serializer, so the header
 * and body are real: a wrong magic byte replaces byte 0, an unknown schema id bytes 1 to 4 (an id
 * from 1 000 000 up, far above what any registry in a test hands out), a truncation cuts the body
 * somewhere before its end (Avro's binary encoding consumes every byte, so any prefix is short).
 */
public final class BadRecords {

    /** Length of an oversized record's id: 300 KB, under the broker's default 1 MB message limit. */
    public static final int OVERSIZED_ID = 300 * 1024;
    /** Length of an absurd but not oversized id. */
    public static final int LONG_ID = 10 * 1024;

    private static final int HEADER = 5;

    private final Random random;

    public BadRecords(long seed) {
        this.random = new Random(seed);
    }

    /** {@code count} bad records for {@code target}, every case covered once {@code count} allows. */
    public <T extends SpecificRecord> List<BadRecord> corpus(FuzzTarget<T> target, int count) {
        List<Object> cases = new ArrayList<>();
        for (BadRecord.Kind kind : BadRecord.Kind.values()) {
            if (target.kinds().contains(kind) && kind != BadRecord.Kind.INVALID_VALUE && kind != BadRecord.Kind.OVERSIZED) {
                cases.add(kind);
            }
        }
        for (Invalid<T> invalid : target.invalid()) {
            if (target.kinds().contains(invalid.kind())) {
                cases.add(invalid);
            }
        }
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("no case of bad record for " + target.topic());
        }
        List<BadRecord> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Object c = cases.get(i % cases.size());
            @SuppressWarnings("unchecked")
            BadRecord bad = c instanceof Invalid<?> inv ? invalid(target, (Invalid<T>) inv) : structural(target, (BadRecord.Kind) c);
            out.add(bad);
        }
        return out;
    }

    /** A string of {@code length} printable characters, as an absurd id. */
    public static String longId(int length) {
        char[] chars = new char[length];
        Arrays.fill(chars, 'x');
        return new String(chars);
    }

    private <T extends SpecificRecord> BadRecord invalid(FuzzTarget<T> target, Invalid<T> invalid) {
        T record = copy(target.good().get());
        invalid.change().accept(record);
        byte[] value = target.serializer().serialize(target.topic(), record);
        return new BadRecord(invalid.kind(), "invalid: " + invalid.name(), key(target, record), value);
    }

    private <T extends SpecificRecord> BadRecord structural(FuzzTarget<T> target, BadRecord.Kind kind) {
        T good = target.good().get();
        byte[] key = key(target, good);
        byte[] encoded = target.serializer().serialize(target.topic(), good);
        return switch (kind) {
            case RANDOM_BYTES -> {
                byte[] bytes = new byte[1 + random.nextInt(200)];
                random.nextBytes(bytes);
                if (bytes[0] == 0) {
                    bytes[0] = 1; // a 0 could start a real header; this kind is about bytes that are no record at all
                }
                yield new BadRecord(kind, "random bytes (" + bytes.length + ")", key, bytes);
            }
            case WRONG_MAGIC -> {
                byte[] bytes = encoded.clone();
                bytes[0] = (byte) (1 + random.nextInt(255));
                yield new BadRecord(kind, "magic byte " + (bytes[0] & 0xff), key, bytes);
            }
            case UNKNOWN_SCHEMA_ID -> {
                byte[] bytes = encoded.clone();
                int id = 1_000_000 + random.nextInt(1_000_000_000);
                bytes[1] = (byte) (id >>> 24);
                bytes[2] = (byte) (id >>> 16);
                bytes[3] = (byte) (id >>> 8);
                bytes[4] = (byte) id;
                yield new BadRecord(kind, "schema id " + id, key, bytes);
            }
            case TRUNCATED_AVRO -> {
                int body = encoded.length - HEADER;
                int keep = body <= 1 ? 0 : random.nextInt(body);
                yield new BadRecord(kind, "body cut to " + keep + " of " + body + " bytes", key,
                        Arrays.copyOf(encoded, HEADER + keep));
            }
            case NULL_VALUE -> new BadRecord(kind, "no value", key, null);
            case NULL_KEY_AND_VALUE -> new BadRecord(kind, "no key, no value", null, null);
            case NULL_KEY -> new BadRecord(kind, "no key", null, encoded);
            case INVALID_VALUE, OVERSIZED -> throw new IllegalArgumentException(kind + " needs an Invalid");
        };
    }

    private static <T extends SpecificRecord> byte[] key(FuzzTarget<T> target, T record) {
        String key = target.key().apply(record);
        return key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    }

    private static <T extends SpecificRecord> T copy(T record) {
        return SpecificData.getForClass(record.getClass()).deepCopy(record.getSchema(), record);
    }
}
