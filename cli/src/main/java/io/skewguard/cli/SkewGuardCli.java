package io.skewguard.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./skewguard} command line: one entry point whose subcommands are the apps, the
 * simulators and the tools. Lifecycle only; every subcommand lives next to the code it runs, and this
 * module only gathers them (each long-running app also ships alone as a {@code java -jar}, without
 * the simulator, the embedded broker or test tooling).
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
        // every subcommand is registered here, once: add new ones to the group they belong to
        subcommands = {
            CommandLine.HelpCommand.class,
            // the long-running apps and what they need
            io.skewguard.detector.DetectorApp.class,
            io.skewguard.balancer.BalancerApp.class,
            io.skewguard.migrator.MigratorApp.class,
            io.skewguard.agent.AgentCommand.class,
            io.skewguard.runtime.topics.TopicsCommand.class,
            io.skewguard.runtime.acls.AclsCommand.class,
            io.skewguard.migrator.membership.NodeCommand.class,
            io.skewguard.migrator.control.CtlCommand.class,
            io.skewguard.dashboard.DashboardCommand.class,
            // the simulators and the embedded demo
            io.skewguard.sim.placement.PlacementSimCommand.class,
            io.skewguard.sim.run.SimulateCommand.class,
            io.skewguard.sim.demo.DemoCommand.class,
            // measurements
            io.skewguard.benchmarks.BenchCommand.class,
        })
public final class SkewGuardCli implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        chooseLogging(args);
        int exit = new CommandLine(new SkewGuardCli()).execute(args);
        System.exit(exit);
    }

    /**
     * Points Log4j 2 at the command line's own configuration before anything logs, so that no
     * library's configuration on the class path takes over. The demo gets a quiet one: its console
     * is for the progress line and the table.
     * An explicit {@code -Dlog4j2.configurationFile} wins.
     */
    private static void chooseLogging(String[] args) {
        // Log4j's own shutdown hook would stop logging while the lifecycle's hook still closes the
        // services after SIGTERM, losing every line of the shutdown; console appenders flush per line
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
        if (System.getProperty("log4j2.configurationFile") == null) {
            boolean demo = args.length > 0 && args[0].equals("demo");
            System.setProperty("log4j2.configurationFile", demo ? "log4j2-demo.xml" : "log4j2.xml");
        }
    }
}
