package io.skewguard.benchmarks.store;

import picocli.CommandLine;

/** {@code bench store} in a JVM of its own, for a test that interrupts it. */
public final class StoreBenchChild {

    private StoreBenchChild() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new StoreUnderMigration()).execute(args));
    }
}
