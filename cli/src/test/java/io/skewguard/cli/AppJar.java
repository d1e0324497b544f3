package io.skewguard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What a self-contained app jar holds: its {@code Main-Class}, its entries, and its root
 * {@code log4j2.xml}. Read by name, not by {@code META-INF/maven}: Kafka's jars are built with Gradle
 * and carry no Maven metadata, so only their classes tell that the broker or the test driver is inside.
 */
record AppJar(Path path, String mainClass, Set<String> entries, Optional<String> logConfiguration) {

    /** Test tooling and everything else a long-running app must not ship, each known by its classes. */
    enum Unwanted {
        JUNIT("JUnit", "org/junit/"),
        OPENTEST4J("opentest4j (JUnit's assertions)", "org/opentest4j/"),
        ASSERTJ("AssertJ", "org/assertj/"),
        JQWIK("jqwik", "net/jqwik/"),
        STREAMS_TEST_UTILS("kafka-streams-test-utils", "org/apache/kafka/streams/TopologyTestDriver"),
        BROKER("the Kafka broker (kafka_2.13)", "kafka/"),
        RAFT("the broker's KRaft quorum (kafka-raft)", "org/apache/kafka/raft/"),
        SCALA("Scala (the broker's runtime)", "scala/"),
        EMBEDDED_BROKER("the embedded broker (io.skewguard.embedded)", "io/skewguard/embedded/"),
        TESTKIT("the test kit (io.skewguard.testkit)", "io/skewguard/testkit/"),
        SIMULATOR("the simulator", "io/skewguard/sim/");

        final String what;
        final String classPrefix;

        Unwanted(String what, String classPrefix) {
            this.what = what;
            this.classPrefix = classPrefix;
        }

        /** A class of this artifact among the entries, if any: the evidence a failure shows. */
        Optional<String> foundIn(Set<String> entries) {
            return entries.stream()
                    .filter(e -> e.startsWith(classPrefix) && e.endsWith(".class"))
                    .findFirst();
        }
    }

    static AppJar open(Path path) throws IOException {
        try (JarFile jar = new JarFile(path.toFile())) {
            Manifest manifest = jar.getManifest();
            String mainClass = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
            Set<String> entries = new TreeSet<>();
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                entries.add(e.nextElement().getName());
            }
            Optional<String> log = Optional.empty();
            JarEntry config = jar.getJarEntry("log4j2.xml");
            if (config != null) {
                try (InputStream in = jar.getInputStream(config)) {
                    log = Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
            return new AppJar(path, mainClass, entries, log);
        }
    }

    /** Every unwanted artifact inside but the allowed ones, each as "what (e.g. some/Class.class)". */
    List<String> unwantedInside(Set<Unwanted> allowed) {
        List<String> found = new ArrayList<>();
        for (Unwanted u : Unwanted.values()) {
            if (!allowed.contains(u)) {
                u.foundIn(entries).ifPresent(evidence -> found.add(u.what + " (e.g. " + evidence + ")"));
            }
        }
        return found;
    }

    boolean contains(String className) {
        return entries.contains(className.replace('.', '/') + ".class");
    }
}
