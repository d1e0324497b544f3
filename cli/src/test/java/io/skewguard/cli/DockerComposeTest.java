package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.service.AgentServiceSettings;
import io.skewguard.balancer.BalancerSettings;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.topics.TopicPlan;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * {@code docker/} cannot drift from the code: there is no Docker engine on the build machines, so
 * this test reads {@code docker/docker-compose.yml} and {@code docker/Dockerfile} and checks every
 * SkewGuard service's command against the command line and every environment variable against the
 * settings model of that command (an unknown variable or a bad value fails exactly as it would
 * fail the container at start).
 */
class DockerComposeTest {

    static final Path COMPOSE = Path.of("..", "docker", "docker-compose.yml");
    static final Path DOCKERFILE = Path.of("..", "docker", "Dockerfile");

    static final Map<String, SettingsModel> MODELS = Map.of(
            "detector", DetectorSettings.MODEL, "balancer", BalancerSettings.MODEL, "migrator", MigratorSettings.MODEL,
            "agent", AgentServiceSettings.MODEL, "topics", TopicPlan.MODEL);

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> services() throws Exception {
        try (Reader r = Files.newBufferedReader(COMPOSE)) {
            Map<String, Object> compose = new Yaml().load(r);
            return (Map<String, Map<String, Object>>) compose.get("services");
        }
    }

    static boolean isSkewGuard(Map<String, Object> service) {
        return "skewguard:latest".equals(service.get("image"));
    }

    @Test
    void composeRunsKafkaTheRegistryTheTopicsStepAndEveryApp() throws Exception {
        Map<String, Map<String, Object>> services = services();
        assertThat(services).containsKeys("kafka", "schema-registry", "topics", "detector", "balancer", "migrator", "agent");
        assertThat(services.get("kafka").get("image").toString()).startsWith("apache/kafka:");
        assertThat(services.get("schema-registry").get("image").toString()).startsWith("confluentinc/cp-schema-registry:");
        for (String app : List.of("topics", "detector", "balancer", "migrator", "agent")) {
            assertThat(isSkewGuard(services.get(app))).as(app + " runs the SkewGuard image").isTrue();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everySkewGuardServiceRunsARealCommandWithSettingsItsModelAccepts() throws Exception {
        List<String> checked = new ArrayList<>();
        for (var e : services().entrySet()) {
            Map<String, Object> service = e.getValue();
            if (!isSkewGuard(service)) {
                continue;
            }
            List<String> command = (List<String>) service.get("command");
            assertThat(command).as(e.getKey() + " command").isNotEmpty();
            CommandLine cli = new CommandLine(new SkewGuardCli());
            CommandLine.ParseResult parsed = cli.parseArgs(command.toArray(String[]::new));
            assertThat(parsed.hasSubcommand()).as(e.getKey() + ": " + command + " names a subcommand").isTrue();

            SettingsModel model = MODELS.get(command.get(0));
            assertThat(model).as("a settings model for " + command.get(0)).isNotNull();
            Map<String, String> env = new LinkedHashMap<>();
            ((Map<String, Object>) service.getOrDefault("environment", Map.of())).forEach((k, v) -> env.put(k, String.valueOf(v)));
            assertThat(env.keySet()).as(e.getKey() + ": every variable is the app's own")
                    .allMatch(k -> k.startsWith(model.envPrefix()));
            Settings settings = model.resolve(Map.of(), null, env, Map.of()); // throws on an unknown key or a bad value
            env.keySet().forEach(k -> assertThat(settings.origin(keyOf(model, settings, k))).startsWith("environment "));

            Object health = service.get("healthcheck");
            if (health != null && model.has(CommonSettings.HEALTH_PORT)) {
                int port = settings.integer(CommonSettings.HEALTH_PORT);
                assertThat(port).as(e.getKey() + " serves the endpoint its health check asks").isPositive();
                assertThat(settings.string(CommonSettings.HEALTH_HOST)).as(e.getKey() + " listens beyond the container's loopback")
                        .isEqualTo("0.0.0.0");
                assertThat(String.valueOf(((Map<String, Object>) health).get("test"))).contains("/" + port + " ").contains("/ready");
            }
            checked.add(e.getKey());
        }
        assertThat(checked).containsExactlyInAnyOrder("topics", "detector", "balancer", "migrator", "agent");
    }

    /** The setting or Kafka key an environment variable of {@code model} names. */
    private static String keyOf(SettingsModel model, Settings settings, String variable) {
        for (var s : model.settings()) {
            if (model.envVariable(s.name()).equals(variable)) {
                return s.name();
            }
        }
        for (String k : settings.kafkaKeys().keySet()) {
            if (model.envVariable(k).equals(variable)) {
                return k;
            }
        }
        throw new AssertionError(variable + " names nothing of " + model.app());
    }

    @Test
    void theImageBuildsTheCommandLineAndRunsItAsANonRootUserOnAJre17() throws Exception {
        String dockerfile = Files.readString(DOCKERFILE);
        assertThat(dockerfile).contains("FROM maven:3.9-eclipse-temurin-17 AS build")
                .contains("mvn -B -q -DskipTests -pl cli -am package")
                .contains("FROM eclipse-temurin:17-jre")
                .contains("COPY --from=build /src/cli/target/skewguard.jar")
                .contains("COPY --from=build /src/cli/target/lib/")
                .containsPattern("(?m)^USER skewguard$")
                .contains("\"" + SkewGuardCli.class.getName() + "\"");
        assertThat(Path.of("target", "skewguard.jar").getFileName().toString())
                .as("the jar the image copies is the one this module builds").isEqualTo("skewguard.jar");
    }
}
