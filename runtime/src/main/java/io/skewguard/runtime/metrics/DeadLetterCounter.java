package io.skewguard.runtime.metrics;

import io.micrometer.core.instrument.Counter;
import java.util.regex.Pattern;

/**
 * {@code skewguard_dead_letters_total{reason}}: records set aside on a dead-letter topic, by the
 * code their reason starts with ({@code poison: …} counts as {@code poison}). Every app calls it
 * where it writes a dead letter.
 */
public final class DeadLetterCounter {

    /** A reason code: a short lower-case word before the colon; anything else counts as {@value #OTHER}. */
    private static final Pattern CODE = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    static final String OTHER = "other";

    private DeadLetterCounter() {
    }

    /** Counts one dead letter with {@code reason}. */
    public static void count(String reason) {
        Counter.builder("skewguard.dead.letters")
                .description("records sent to the dead-letter topic, by the code their reason starts with")
                .tag("reason", code(reason))
                .register(ProcessMetrics.registry())
                .increment();
    }

    /**
     * The code a reason starts with: the text before its first colon when that is a short lower-case
     * word, else {@value #OTHER} (a free-text reason must not become a series of its own).
     */
    public static String code(String reason) {
        if (reason == null) {
            return OTHER;
        }
        int colon = reason.indexOf(':');
        String head = (colon > 0 ? reason.substring(0, colon) : reason).trim();
        return CODE.matcher(head).matches() ? head : OTHER;
    }
}
