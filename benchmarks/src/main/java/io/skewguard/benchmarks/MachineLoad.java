package io.skewguard.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The machine's load when a benchmark started, to print beside its figures: on a shared machine the
 * absolute figures move with what else runs, so every run says how busy the machine was and the
 * ratios against a baseline measured in the same run are what to compare.
 */
public record MachineLoad(Instant at, double loadAverage, int processors) {

    /** The 1-minute load average now (negative where the operating system does not offer one). */
    public static MachineLoad now() {
        return new MachineLoad(Instant.now().truncatedTo(ChronoUnit.SECONDS),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors());
    }

    /** One line: the run's start and end, and the load average at both. */
    public String untilNow() {
        MachineLoad end = now();
        return String.format("run %s – %s on %d processors; 1-minute load average %.2f at the start, %.2f at the end",
                at, end.at, processors, loadAverage, end.loadAverage);
    }
}
