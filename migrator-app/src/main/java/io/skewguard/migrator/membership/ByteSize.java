package io.skewguard.migrator.membership;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size in bytes as an operator writes it: {@code 100TB} (decimal, 10^12), {@code 512GiB} (binary,
 * 2^30), or plain digits for bytes; and written back in decimal units ({@code 412.0 GB}), the units
 * disks are sold in.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGTPE]i?B|B)?", Pattern.CASE_INSENSITIVE);
    private static final String[] UNITS = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};

    private ByteSize() {
    }

    /**
     * The bytes of {@code text}.
     *
     * @throws IllegalArgumentException naming the text and the forms allowed, for a malformed, zero or too large size
     */
    public static long parse(String text) {
        String t = text == null ? "" : text.trim();
        Matcher m = SIZE.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + t + "' is not a size; write it like 100TB, 512GiB or 2000000000000 (bytes)");
        }
        String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
        double factor = switch (unit) {
            case "B" -> 1;
            case "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            case "PB" -> 1e15;
            case "EB" -> 1e18;
            case "KIB" -> 0x1p10;
            case "MIB" -> 0x1p20;
            case "GIB" -> 0x1p30;
            case "TIB" -> 0x1p40;
            case "PIB" -> 0x1p50;
            default -> 0x1p60;
        };
        double bytes = Double.parseDouble(m.group(1)) * factor;
        if (bytes >= Long.MAX_VALUE / 2.0) {
            throw new IllegalArgumentException("'" + t + "' is too large a size");
        }
        long rounded = Math.round(bytes);
        if (rounded <= 0) {
            throw new IllegalArgumentException("'" + t + "' is not a size above 0 bytes");
        }
        return rounded;
    }

    /** {@code bytes} in decimal units with one decimal: {@code 412.0 GB}, {@code 512 B}. */
    public static String format(long bytes) {
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1000 && u < UNITS.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", v, UNITS[u]);
    }
}
