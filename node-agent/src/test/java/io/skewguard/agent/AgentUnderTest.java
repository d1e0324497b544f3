package io.skewguard.agent;

import io.skewguard.testkit.AppProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * {@code skewguard agent} in the process tests: started as its own JVM ({@link AppProcess}) with
 * one {@code --config FILE}, the way a deployment starts it; and what its state files show.
 */
final class AgentUnderTest {

    static final Duration WAIT = Duration.ofSeconds(90);

    private AgentUnderTest() {
    }

    /** Writes {@code settings} to {@code config} and starts {@code skewguard agent --config config}, its output into {@code output}. */
    static AppProcess start(Map<String, String> settings, Path config, Path output) {
        Properties p = new Properties();
        p.putAll(settings);
        try (Writer out = Files.newBufferedWriter(config)) {
            p.store(out, "skewguard agent, written by the test");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        return AppProcess.start(AgentCommand.class, output, "--config", config.toString());
    }

    /**
     * The weight epoch a running agent's state file records, -1 without a file. Read as text, not
     * with {@code StateFile.load}, which would delete the temporary file of a save under way.
     */
    static long appliedWeightEpoch(Path stateFile) {
        try {
            if (!Files.exists(stateFile)) {
                return -1;
            }
            for (String line : Files.readAllLines(stateFile)) {
                if (line.startsWith("weight ")) {
                    return Long.parseLong(line.split(" ")[1]);
                }
            }
            return -1;
        } catch (IOException e) {
            return -1; // replaced under our feet: read again on the next poll
        }
    }
}
