package io.skewguard.sim.scenario;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The scenarios shipped in the simulator's jar ({@code scenarios/<name>.properties}, listed in
 * {@code scenarios/index.txt}) and scenario files on disk.
 */
public final class ScenarioLibrary {

    private static final String DIR = "scenarios/";

    private ScenarioLibrary() {}

    /** Names of the shipped scenarios, in index order. */
    public static List<String> shipped() {
        String index = resource(DIR + "index.txt");
        List<String> names = new ArrayList<>();
        for (String line : index.split("\n")) {
            String name = line.strip();
            if (!name.isEmpty() && !name.startsWith("#")) {
                names.add(name);
            }
        }
        return names;
    }

    /** A shipped scenario by name. */
    public static Scenario load(String name) {
        String file = name + ".properties";
        return ScenarioParser.parse(file, resource(DIR + file));
    }

    /**
     * {@code nameOrPath} as a file when one exists there, else as a shipped scenario's name.
     *
     * @throws IllegalArgumentException naming the shipped scenarios when it is neither
     */
    public static Scenario resolve(String nameOrPath) {
        Path path = Path.of(nameOrPath);
        if (Files.isRegularFile(path)) {
            try {
                return ScenarioParser.parse(path.toString(), Files.readString(path, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + path, e);
            }
        }
        if (shipped().contains(nameOrPath)) {
            return load(nameOrPath);
        }
        throw new IllegalArgumentException("no scenario file '" + nameOrPath + "' and no shipped scenario of that name; "
                + "shipped: " + String.join(", ", shipped()));
    }

    private static String resource(String name) {
        try (InputStream in = ScenarioLibrary.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the simulator's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
