package io.skewguard.agent.state;

import java.nio.file.Path;

/** The agent's state file cannot be read or written; the message names the file and the problem. */
public final class StateFileException extends RuntimeException {

    public StateFileException(Path file, String problem) {
        super("agent state file " + file + ": " + problem);
    }

    public StateFileException(Path file, String problem, Throwable cause) {
        super("agent state file " + file + ": " + problem, cause);
    }
}
