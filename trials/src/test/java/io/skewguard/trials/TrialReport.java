package io.skewguard.trials;

import io.skewguard.trials.Trial.Outcome;
import io.skewguard.trials.Trial.Taken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** The table of a run of trials, in Markdown: one row per trial. */
final class TrialReport {

    private TrialReport() {
    }

    static String table(long seed, List<Outcome> outcomes) {
        StringBuilder b = new StringBuilder();
        long passed = outcomes.stream().filter(Outcome::passed).count();
        b.append("Seed ").append(seed).append(": ").append(passed).append(" of ").append(outcomes.size()).append(" trials passed.\n\n");
        b.append("| trial | steps | moment of each step | start s | total s | migrations committed / aborted | weight epochs | alert transitions | keys written | dead letters | violations |\n");
        b.append("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (Outcome o : outcomes) {
            b.append("| ").append(o.name())
                    .append(" | ").append(o.steps().stream().map(t -> t.step().toString()).collect(Collectors.joining("; ")))
                    .append(" | ").append(o.steps().stream().map(Taken::moment).collect(Collectors.joining("; ")).replace("|", "/"))
                    .append(" | ").append(o.startMillis() / 1000)
                    .append(" | ").append(o.totalMillis() / 1000)
                    .append(" | ").append(o.figures().getOrDefault("migrations committed", 0L)).append(" / ")
                    .append(o.figures().getOrDefault("migrations aborted", 0L))
                    .append(" | ").append(o.figures().getOrDefault("weight epochs", 0L))
                    .append(" | ").append(o.figures().getOrDefault("alert transitions", 0L))
                    .append(" | ").append(o.figures().getOrDefault("keys written", 0L))
                    .append(" | ").append(o.figures().entrySet().stream().filter(e -> e.getKey().startsWith("dead letters "))
                            .map(e -> e.getKey().substring("dead letters ".length()) + " " + e.getValue())
                            .collect(Collectors.joining(", ", "", "")).replace("|", "/"))
                    .append(" | ").append(o.violations().isEmpty() ? "none" : String.join("; ", o.violations()).replace("|", "/"))
                    .append(" |\n");
        }
        return b.toString();
    }

    static void write(Path file, long seed, List<Outcome> outcomes) {
        try {
            Files.writeString(file, table(seed, outcomes));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
