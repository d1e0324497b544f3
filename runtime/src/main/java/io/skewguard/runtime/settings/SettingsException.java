package io.skewguard.runtime.settings;

/**
 * A setting that cannot be used: its message is the one line a user sees (key, value, where it came
 * from, what is allowed). Every app ends with exit code 2 on it, before it starts anything.
 */
public final class SettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public SettingsException(String message) {
        super(message);
    }
}
