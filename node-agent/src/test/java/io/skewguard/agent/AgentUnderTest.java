package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.AppProcess;
import io.skewguard.testkit.RegistryOverHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * {@code skewguard agent} in the process tests, run the way a deployment runs it: a JVM of its own
 * ({@link AppProcess}, logging at INFO) started with one {@code --config FILE} that holds the
 * broker's standard Kafka client keys for a SASL user, a registry that wants basic authentication,
 * and the agent's own settings. Also what its output and state files must show.
 */
final class AgentUnderTest {

    static final Duration WAIT = Duration.ofSeconds(90);

    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^\\S+ ERROR ");

    private AgentUnderTest() {
    }

    /**
     * Writes the agent's configuration file: {@code broker}'s client keys for SASL user {@code user}
     * ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.mechanism},
     * {@code sasl.jaas.config}), {@code registry} as {@code schema.registry.url} with basic
     * authentication as {@code registryUserInfo}, consumer-group timeouts short enough that the
     * members of a killed agent are gone within seconds, then the agent's own {@code settings}.
     *
     * @return {@code file}
     */
    static Path configFile(Path file, EmbeddedKafka broker, String user, RegistryOverHttp registry,
                           String registryUserInfo, Map<String, String> settings) {
        broker.writeClientProperties(file, user);
        Properties own = new Properties();
        own.put("schema.registry.url", registry.url());
        own.put("basic.auth.credentials.source", "USER_INFO");
        own.put("basic.auth.user.info", registryUserInfo);
        // the broker's lowest session timeout: a restarted agent's group does not wait 45 s for the dead members
        own.put("session.timeout.ms", "6000");
        own.put("heartbeat.interval.ms", "1500");
        own.putAll(settings);
        try (Writer out = Files.newBufferedWriter(file, StandardOpenOption.APPEND)) {
            own.store(out, "the agent's own settings, written by the test");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** Starts {@code skewguard agent --config config}, its whole output going to {@code output}. */
    static AppProcess start(Path config, Path output) {
        return AppProcess.start(AgentCommand.class, output, "--config", config.toString());
    }

    /** The consumer group of the command agent of {@code node}. */
    static String group(String node) {
        return "skewguard-agent-" + node;
    }

    /**
     * Checks the whole output of an agent: the start-up settings line and the Kafka clients'
     * configuration dumps are there with {@code sasl.jaas.config} (and the registry's user info)
     * hidden, no {@code secret} appears anywhere, and no line is an ERROR.
     */
    static void assertNoSecretAndNoError(String output, String... secrets) {
        assertThat(output).contains("starting with agent settings {", "sasl.jaas.config=[hidden]",
                "basic.auth.user.info=[hidden]", "sasl.jaas.config = [hidden]");
        for (String secret : secrets) {
            assertThat(output.lines().filter(line -> line.contains(secret))).as("lines of the agent's output with a secret")
                    .isEmpty();
        }
        assertThat(ERROR_LINE.matcher(output).find()).as("an ERROR line in the agent's output:\n%s", output).isFalse();
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
