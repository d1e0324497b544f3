package io.skewguard.runtime.settings;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The type of a setting: how its text is read, what {@code --help} calls its value, what an error says is allowed. */
public enum SettingType {
    STRING("TEXT", "any text"),
    /** Text that must never be shown: printed as {@code [hidden]} everywhere. */
    PASSWORD("SECRET", "any text"),
    INT("N", "a whole number"),
    LONG("N", "a whole number"),
    DOUBLE("X", "a number"),
    BOOLEAN("true|false", "true or false"),
    DURATION("DURATION", Durations.ALLOWED),
    /** Comma-separated, blanks trimmed, empty items dropped. */
    LIST("A,B,...", "a comma-separated list");

    private final String paramLabel;
    private final String allowed;

    SettingType(String paramLabel, String allowed) {
        this.paramLabel = paramLabel;
        this.allowed = allowed;
    }

    /** What {@code --help} shows as the flag's value. */
    public String paramLabel() {
        return paramLabel;
    }

    /** What values of this type look like, for error messages and the docs. */
    public String allowed() {
        return allowed;
    }

    /**
     * The value of {@code text} as this type: String, Integer, Long, Double, Boolean, Duration or
     * List&lt;String&gt;.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    public Object parse(String text) {
        String t = text.trim();
        try {
            return switch (this) {
                case STRING, PASSWORD -> t;
                case INT -> Integer.parseInt(t);
                case LONG -> Long.parseLong(t);
                case DOUBLE -> {
                    double d = Double.parseDouble(t);
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        throw new NumberFormatException();
                    }
                    yield d;
                }
                case BOOLEAN -> switch (t.toLowerCase(Locale.ROOT)) {
                    case "true" -> Boolean.TRUE;
                    case "false" -> Boolean.FALSE;
                    default -> throw new IllegalArgumentException("'" + text + "' is not " + allowed);
                };
                case DURATION -> Durations.parse(t);
                case LIST -> List.copyOf(Arrays.stream(t.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not " + allowed);
        }
    }

    /** The text {@link #parse} reads back as {@code value}. */
    @SuppressWarnings("unchecked")
    public String format(Object value) {
        return switch (this) {
            case DURATION -> Durations.format((Duration) value);
            case LIST -> String.join(",", (List<String>) value);
            default -> String.valueOf(value);
        };
    }
}
