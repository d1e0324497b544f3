package io.skewguard.sim.run;

import io.skewguard.sim.report.ConsoleTable;
import io.skewguard.sim.report.HtmlReport;
import io.skewguard.sim.report.SummaryJson;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioException;
import io.skewguard.sim.scenario.ScenarioLibrary;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code skewguard simulate SCENARIO [--policy P] [--seed N] [--report DIR]}: runs the cluster
 * simulator ({@link Simulation}) for each policy of the scenario on the same seed, prints a progress
 * line per simulated day to stderr and the table next to the paper's figures to stdout, and with
 * {@code --report} writes {@code report.html} and {@code summary.json}.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Simulates a storage cluster under a scenario and compares repair policies",
                "(none, ceph = reweight-by-utilization, skewguard) on the same seed."})
public final class SimulateCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "SCENARIO",
            description = "a shipped scenario's name (see --list) or a scenario file")
    private String scenarioName;

    @Option(names = "--policy", paramLabel = "P", description = "only this policy: none, ceph, skewguard (default: the scenario's)")
    private String policy;

    @Option(names = "--seed", paramLabel = "N", description = "seed instead of the scenario's")
    private Long seed;

    @Option(names = "--report", paramLabel = "DIR", description = "write report.html and summary.json into DIR")
    private Path reportDir;

    @Option(names = "--mode", paramLabel = "M", defaultValue = "model",
            description = {"How SkewGuard runs; the other policies are the same in both. model: the apps' pure policy "
                    + "classes once per step (seconds). fast: the real detector, balancer and migrator topologies under "
                    + "TopologyTestDriver and real node agents on in-memory stores, in simulated time, no broker (minutes; "
                    + "joins and losses as membership changes the migrator follows). Default: ${DEFAULT-VALUE}"})
    private String modeName;

    @Option(names = "--list", description = "list the shipped scenarios")
    private boolean list;

    @Option(names = "--quiet", description = "no progress lines")
    private boolean quiet;

    @Override
    public Integer call() throws IOException {
        PrintStream out = System.out;
        PrintStream err = System.err;
        if (list) {
            for (String name : ScenarioLibrary.shipped()) {
                Scenario s = ScenarioLibrary.load(name);
                out.printf(Locale.ROOT, "%-18s %s%n", name, s.description());
            }
            return 0;
        }
        if (scenarioName == null) {
            err.println("simulate: name a scenario (or --list to see the shipped ones)");
            return 2;
        }
        Scenario scenario;
        try {
            scenario = ScenarioLibrary.resolve(scenarioName);
        } catch (ScenarioException | IllegalArgumentException e) {
            err.println("simulate: " + e.getMessage());
            return 2;
        }
        if (seed != null) {
            scenario = scenario.withSeed(seed);
        }
        if (policy != null) {
            if (!Scenario.POLICIES.contains(policy)) {
                err.println("simulate: unknown policy '" + policy + "': " + String.join(", ", Scenario.POLICIES));
                return 2;
            }
            scenario = scenario.withPolicies(List.of(policy));
        }
        SimulationMode mode;
        try {
            mode = SimulationMode.parse(modeName);
        } catch (IllegalArgumentException e) {
            err.println("simulate: " + e.getMessage());
            return 2;
        }
        long started = System.nanoTime();
        List<PolicyRun> runs = new ArrayList<>();
        for (String p : scenario.policies()) {
            PolicyRun run;
            try {
                run = Simulation.run(scenario, p, mode, progress -> {
                if (!quiet) {
                    err.printf(Locale.ROOT, "%-9s day %5.1f  heat Gini %.3f  capacity CV %.3f  weights changed %6d  "
                                    + "migrations running %3d  moved %10.1f TB%n",
                            progress.policy(), progress.day(), progress.heatGini(), progress.capacityCv(),
                            progress.weightChanges(), progress.migrationsRunning(), progress.bytesMoved() / 1e12);
                }
                });
            } catch (IllegalArgumentException e) {
                err.println("simulate: " + e.getMessage());
                return 2;
            }
            runs.add(run);
        }
        double wall = (System.nanoTime() - started) / 1e9;
        List<PolicySummary> summaries = new ArrayList<>();
        runs.forEach(r -> summaries.add(r.summary()));
        out.print(ConsoleTable.render(scenario.name(), scenario.seed(), summaries));
        out.printf(Locale.ROOT, "wall time %.1f s for %d policies; mode %s: %s%n", wall, runs.size(),
                mode.name().toLowerCase(Locale.ROOT), mode == SimulationMode.FAST
                        ? "SkewGuard ran as the apps' topologies under TopologyTestDriver with real node agents"
                        : "SkewGuard's loop called the apps' pure policy classes directly, not their topologies (--mode fast)");
        if (reportDir != null) {
            Files.createDirectories(reportDir);
            Files.writeString(reportDir.resolve("summary.json"), SummaryJson.render(scenario.name(), scenario.seed(),
                    mode.name().toLowerCase(Locale.ROOT), summaries),
                    StandardCharsets.UTF_8);
            Files.writeString(reportDir.resolve("report.html"), HtmlReport.render(scenario, runs), StandardCharsets.UTF_8);
            out.println("wrote " + reportDir.resolve("report.html") + " and " + reportDir.resolve("summary.json"));
        }
        return 0;
    }
}
