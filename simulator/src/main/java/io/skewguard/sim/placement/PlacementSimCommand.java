package io.skewguard.sim.placement;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** {@code skewguard placement-sim}: prints the placement table of {@link PlacementSimulation}. */
@Command(
        name = "placement-sim",
        mixinStandardHelpOptions = true,
        description = {
            "Compares hash mod N, a bare consistent-hash ring and a ring with virtual nodes:",
            "the fraction of keys that move when 5 nodes become 6 or 4, and max/min keys per node after.",
        })
public final class PlacementSimCommand implements Callable<Integer> {

    @Option(names = "--keys", defaultValue = "1000000", description = "Number of random keys (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed; the same seed gives the same table (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--vnodes", defaultValue = "150", description = "Virtual nodes per node of the third scheme (default: ${DEFAULT-VALUE}).")
    int vnodes;

    @Override
    public Integer call() {
        PlacementSimulation simulation;
        try {
            simulation = new PlacementSimulation(keys, seed, vnodes);
        } catch (IllegalArgumentException e) {
            System.err.println("placement-sim: " + e.getMessage());
            return 2;
        }
        System.out.print(PlacementTable.render(simulation.run(), keys, seed));
        return 0;
    }
}
