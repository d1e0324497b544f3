package io.skewguard.sim.fuzz;

import io.skewguard.schemas.DeadLetter;
import io.skewguard.testkit.fuzz.BadRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * What one fuzz run of one app sent and what came out of the dead-letter topic, matched by source
 * topic, partition and offset: the exact figures of docs/reliability.md.
 */
final class FuzzLedger {

    /** Where a record sits on its input topic. */
    record At(String topic, int partition, long offset) {
        static At of(RecordMetadata m) {
            return new At(m.topic(), m.partition(), m.offset());
        }
    }

    private final String app;
    private final Map<At, BadRecord> bad = new HashMap<>();
    private final Map<At, Object> good = new HashMap<>();
    private final Map<At, Integer> lettered = new HashMap<>();
    private final Map<At, String> reasons = new HashMap<>();
    private int lettersWithoutHeaders;
    private int lettersWithoutReason;

    FuzzLedger(String app) {
        this.app = app;
    }

    void sentBad(RecordMetadata at, BadRecord record) {
        bad.put(At.of(at), record);
    }

    void sentGood(RecordMetadata at, Object record) {
        good.put(At.of(at), record);
    }

    /** Takes every dead letter whose source is one of {@code inputs}. */
    void deadLetters(List<ConsumerRecord<byte[], byte[]>> letters, Set<String> inputs) {
        for (ConsumerRecord<byte[], byte[]> r : letters) {
            DeadLetter letter;
            try {
                letter = DeadLetter.fromHeaders(r.headers());
            } catch (IllegalArgumentException e) {
                lettersWithoutHeaders++;
                continue;
            }
            if (!inputs.contains(letter.sourceTopic())) {
                continue;
            }
            At at = new At(letter.sourceTopic(), letter.sourcePartition(), letter.sourceOffset());
            lettered.merge(at, 1, Integer::sum);
            reasons.put(at, letter.reason());
            if (letter.reason().isBlank()) {
                lettersWithoutReason++;
            }
        }
    }

    int badSent() {
        return bad.size();
    }

    int goodSent() {
        return good.size();
    }

    int lettersTotal() {
        return lettered.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Bad records not in the dead-letter topic, by defect. */
    Map<String, Integer> lostBad() {
        Map<String, Integer> lost = new TreeMap<>();
        bad.forEach((at, r) -> {
            if (!lettered.containsKey(at)) {
                boolean value = r.kind() == BadRecord.Kind.INVALID_VALUE || r.kind() == BadRecord.Kind.OVERSIZED;
                lost.merge(at.topic() + " " + (value ? r.what() : r.kind().toString()), 1, Integer::sum);
            }
        });
        return lost;
    }

    int lostBadCount() {
        return lostBad().values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Good records that were dead-lettered, with the reasons given. */
    List<String> goodDeadLettered() {
        List<String> out = new ArrayList<>();
        good.forEach((at, r) -> {
            if (lettered.containsKey(at)) {
                out.add(at + ": " + reasons.get(at));
            }
        });
        return out;
    }

    /** Sources dead-lettered more than once. */
    int duplicateLetters() {
        return (int) lettered.values().stream().filter(n -> n > 1).count();
    }

    int lettersWithoutHeaders() {
        return lettersWithoutHeaders;
    }

    int lettersWithoutReason() {
        return lettersWithoutReason;
    }

    /** Dead-letter reason codes (the text before the first ':'), by count. */
    Map<String, Integer> reasonCodes() {
        Map<String, Integer> codes = new TreeMap<>();
        reasons.values().forEach(r -> {
            String code = r.contains(":") ? r.substring(0, r.indexOf(':')) : r;
            // ids and numbers make every reason different; a reason without a code is cut to its start
            code = code.replaceAll("x{20,}", "<long id>").replaceAll("\\d+", "N");
            codes.merge(code.length() > 40 ? code.substring(0, 40) + "…" : code, 1, Integer::sum);
        });
        return codes;
    }

    /** The run's figures, for the test output and docs/reliability.md. */
    String summary(String processed, boolean alive) {
        StringBuilder s = new StringBuilder();
        s.append(String.format("FUZZ %s: bad sent %d, dead letters %d, bad lost %d, good sent %d, good dead-lettered %d, "
                        + "duplicate letters %d, letters without headers %d / reason %d, good processed: %s, app alive: %s%n",
                app, badSent(), lettersTotal(), lostBadCount(), goodSent(), goodDeadLettered().size(), duplicateLetters(),
                lettersWithoutHeaders, lettersWithoutReason, processed, alive));
        lostBad().forEach((what, n) -> s.append(String.format("FUZZ %s:   lost %4d  %s%n", app, n, what)));
        goodDeadLettered().stream().limit(5).forEach(g -> s.append(String.format("FUZZ %s:   good dead-lettered %s%n", app, g)));
        s.append(String.format("FUZZ %s:   reason codes %s%n", app, reasonCodes()));
        return s.toString();
    }
}
