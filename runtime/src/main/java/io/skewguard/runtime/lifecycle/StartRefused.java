package io.skewguard.runtime.lifecycle;

/**
 * A service that will not start in the environment it finds (topics missing, say), with a message
 * that says everything an operator needs, including what to do. The lifecycle logs the message
 * alone, without a stack trace, and ends the process with {@link ExitCode#FAILED}.
 */
public class StartRefused extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public StartRefused(String message) {
        super(message);
    }
}
