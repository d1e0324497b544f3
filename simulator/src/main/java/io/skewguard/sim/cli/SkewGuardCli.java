package io.skewguard.sim.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./skewguard} command line: one entry point whose subcommands are the apps, the
 * simulators and the tools. Lifecycle only; every subcommand lives next to the code it runs.
 */
@Command(
        name = "skewguard",
        mixinStandardHelpOptions = true,
        version = "SkewGuard 0.1.0-SNAPSHOT",
        description = {
            "Keeps a consistent-hashing storage cluster in balance over Kafka:",
            "detects write-heat and capacity skew, steers new writes with weight factors,",
            "and migrates cold shards in the background."
        },
        subcommands = {
            CommandLine.HelpCommand.class,
            io.skewguard.detector.DetectorApp.class,
            io.skewguard.balancer.BalancerApp.class,
            io.skewguard.migrator.MigratorApp.class,
            io.skewguard.sim.placement.PlacementSimCommand.class,
            io.skewguard.sim.run.SimulateCommand.class,
        })
public final class SkewGuardCli implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        int exit = new CommandLine(new SkewGuardCli()).execute(args);
        System.exit(exit);
    }
}
