package io.skewguard.runtime.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of every SkewGuard setting, flag and scenario file: a number with a unit,
 * {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}, {@code 2w} (also combined, {@code 1h30m},
 * and with a fraction, {@code 1.5s}), or ISO-8601 ({@code PT1M}, {@code P1D}). {@code 0} alone is
 * zero. A bare number other than 0 is refused: a unit-less {@code 1000} has been read as seconds by
 * one tool and as milliseconds by another, so it is not allowed to mean either.
 */
public final class Durations {

    /** What an error message shows as the allowed forms. */
    public static final String ALLOWED = "a number with a unit (500ms, 30s, 5m, 2h, 1d, 2w, 1h30m) or ISO-8601 (PT1M)";

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d|w)");
    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h|d|w))+");

    private Durations() {
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException saying what is allowed, when {@code text} is not a duration
     */
    public static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no duration given; expected " + ALLOWED);
        }
        String t = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        if (t.startsWith("p") || t.startsWith("-p")) {
            try {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw notADuration(text);
            }
        }
        if (!WHOLE.matcher(t).matches()) {
            if (t.matches("\\d+(\\.\\d+)?")) {
                throw new IllegalArgumentException("'" + text + "' has no unit; expected " + ALLOWED);
            }
            throw notADuration(text);
        }
        Matcher m = PART.matcher(t);
        double millis = 0;
        while (m.find()) {
            double n = Double.parseDouble(m.group(1));
            millis += n * switch (m.group(2)) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                case "d" -> 86_400_000L;
                case "w" -> 604_800_000L;
                default -> throw notADuration(text);
            };
        }
        if (millis > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("'" + text + "' is too long a duration");
        }
        return Duration.ofMillis(Math.round(millis));
    }

    /** The shortest text {@link #parse} reads back as {@code d} (to the millisecond): 60s → {@code 1m}, 1500 ms → {@code 1500ms}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0";
        }
        if (ms < 0) {
            return d.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString();
        }
        StringBuilder b = new StringBuilder();
        long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
        String[] names = {"d", "h", "m", "s", "ms"};
        if (ms % 1000 != 0 && ms < 60_000) {
            return ms + "ms";
        }
        for (int i = 0; i < units.length; i++) {
            long n = ms / units[i];
            if (n > 0) {
                b.append(n).append(names[i]);
                ms -= n * units[i];
            }
        }
        return b.toString();
    }

    private static IllegalArgumentException notADuration(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration; expected " + ALLOWED);
    }
}
