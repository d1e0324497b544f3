package io.skewguard.runtime.lifecycle;

/**
 * The exit status of every SkewGuard process, in one place so that a supervisor can tell the cases
 * apart: a restart helps after {@link #FAILED}, never after {@link #BAD_SETTINGS}.
 */
public final class ExitCode {

    /** Stopped on request (SIGTERM, SIGINT, {@link ProcessLifecycle#stop()}) and every service closed in time. */
    public static final int OK = 0;

    /** A service failed (while starting or running), or the close did not finish within its deadline. */
    public static final int FAILED = 1;

    /**
     * The settings were rejected before anything started. Same as picocli's own usage-error code, so
     * a bad flag and a bad value in a settings file end alike.
     */
    public static final int BAD_SETTINGS = 2;

    private ExitCode() {
    }
}
