package io.skewguard.runtime.topics;

import io.skewguard.runtime.lifecycle.StartRefused;
import java.util.List;

/**
 * An app found SkewGuard topics missing at start and was not asked to create them. The message
 * names the topics and the command that creates them.
 */
public final class MissingTopicsException extends StartRefused {

    private static final long serialVersionUID = 1L;

    private final List<String> missing;

    public MissingTopicsException(List<String> missing, String message) {
        super(message);
        this.missing = List.copyOf(missing);
    }

    public List<String> missing() {
        return missing;
    }
}
