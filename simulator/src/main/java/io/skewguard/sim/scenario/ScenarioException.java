package io.skewguard.sim.scenario;

/**
 * A scenario file that cannot be used, with where and why: {@code paper-48.properties:12: negative
 * capacity -5TB of node group 'main'}. {@link #line()} is 0 when the problem is not on one line (a
 * missing key).
 */
public final class ScenarioException extends RuntimeException {

    private final String file;
    private final int line;
    private final String reason;

    public ScenarioException(String file, int line, String reason) {
        super(file + (line > 0 ? ":" + line : "") + ": " + reason);
        this.file = file;
        this.line = line;
        this.reason = reason;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    public String reason() {
        return reason;
    }
}
