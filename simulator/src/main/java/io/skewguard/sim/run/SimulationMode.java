package io.skewguard.sim.run;

/**
 * How SkewGuard's loop is run in a simulation. The model and the other policies are the same in
 * both modes.
 */
public enum SimulationMode {
    /** The apps' pure policy classes called once per step, agents simulated in the loop: seconds. */
    MODEL,
    /**
     * The apps' own topologies under {@code TopologyTestDriver} and real node agents on in-memory
     * stores, in simulated time, no broker: minutes.
     */
    FAST;

    /** {@code model} or {@code fast}. */
    public static SimulationMode parse(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "model" -> MODEL;
            case "fast" -> FAST;
            default -> throw new IllegalArgumentException("unknown mode '" + text + "': use model or fast");
        };
    }
}
