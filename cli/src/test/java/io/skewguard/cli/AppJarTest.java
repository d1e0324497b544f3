package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.cli.AppJar.Unwanted;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check {@code AppJarsITCase} runs on the real app jars, specified on jars made here. */
class AppJarTest {

    @TempDir
    Path dir;

    @Test
    void readsTheMainClassAndTheRootLogConfiguration() throws IOException {
        Path jar = jar("app.jar", "com.example.App", "com/example/App.class", "log4j2.xml");

        AppJar app = AppJar.open(jar);

        assertThat(app.mainClass()).isEqualTo("com.example.App");
        assertThat(app.contains("com.example.App")).isTrue();
        assertThat(app.logConfiguration()).contains("<Configuration/>");
    }

    @Test
    void namesEachUnwantedArtifactWithOneOfItsClasses() throws IOException {
        Path jar = jar("crept.jar", "com.example.App", "com/example/App.class",
                "org/junit/jupiter/api/Test.class", "kafka/server/KafkaRaftServer.class",
                "io/skewguard/embedded/EmbeddedKafka.class", "io/skewguard/testkit/RegistryOverHttp.class");

        assertThat(AppJar.open(jar).unwantedInside(EnumSet.noneOf(Unwanted.class))).containsExactly(
                "JUnit (e.g. org/junit/jupiter/api/Test.class)",
                "the Kafka broker (kafka_2.13) (e.g. kafka/server/KafkaRaftServer.class)",
                "the embedded broker (io.skewguard.embedded) (e.g. io/skewguard/embedded/EmbeddedKafka.class)",
                "the test kit (io.skewguard.testkit) (e.g. io/skewguard/testkit/RegistryOverHttp.class)");
    }

    @Test
    void theStreamsTestDriverPassesOnlyWhereItIsAllowed() throws IOException {
        AppJar app = AppJar.open(jar("detector.jar", "com.example.App",
                "org/apache/kafka/streams/TopologyTestDriver.class"));

        assertThat(app.unwantedInside(EnumSet.of(Unwanted.STREAMS_TEST_UTILS))).isEmpty();
        assertThat(app.unwantedInside(EnumSet.noneOf(Unwanted.class))).hasSize(1);
    }

    @Test
    void resourcesUnderAnUnwantedPrefixAreNotClasses() throws IOException {
        // kafka-clients ships kafka/kafka-version.properties: a resource, not the broker
        AppJar app = AppJar.open(jar("clients.jar", "com.example.App", "kafka/kafka-version.properties"));

        assertThat(app.unwantedInside(EnumSet.noneOf(Unwanted.class))).isEmpty();
    }

    private Path jar(String name, String mainClass, String... entries) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        Path path = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(path); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            for (String entry : entries) {
                jar.putNextEntry(new JarEntry(entry));
                if (entry.equals("log4j2.xml")) {
                    jar.write("<Configuration/>".getBytes(StandardCharsets.UTF_8));
                }
                jar.closeEntry();
            }
        }
        return path;
    }
}
