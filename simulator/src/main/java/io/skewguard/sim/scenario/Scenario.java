package io.skewguard.sim.scenario;

import java.util.List;

/**
 * A cluster simulation, as read from a scenario file: the one settings object every part of the
 * simulator (model, heat generator, policies, reports) reads.
 *
 * @param name scenario name
 * @param description one line for people
 * @param source where it was read from (file name or resource)
 * @param seed the seed of every random draw: same scenario and seed, same numbers
 * @param durationMillis simulated time
 * @param stepMillis simulated time per step; a detector tick and a possible balancer round per step
 * @param slots S, a power of two
 * @param candidates m, candidate-set size
 * @param vnodesPerUnit ring points per unit of ring weight
 * @param nodes the cluster at the start
 * @param fill utilisation of the cluster at the start (data laid down with the same heat and placement)
 * @param fillHeat the heat the starting data was written under (its own seeded ranking of slots: the
 *     hot slots of the past are not today's), or null for the same heat and ranking as {@code heat}
 * @param heat how writes spread over slots
 * @param writes the write load
 * @param policies the policies to compare, in report order ({@code none}, {@code ceph}, {@code skewguard})
 * @param repairFromMillis no policy acts before this time (the "no repair" weeks)
 * @param ceph the Ceph baseline's parameters
 * @param skewguard SkewGuard's parameters
 * @param events the timeline, in time order
 * @param probeKeys how many sample keys are written and checked for readability at the end
 */
public record Scenario(
        String name,
        String description,
        String source,
        long seed,
        long durationMillis,
        long stepMillis,
        int slots,
        int candidates,
        int vnodesPerUnit,
        List<NodeSpec> nodes,
        double fill,
        HeatSpec fillHeat,
        HeatSpec heat,
        WriteSpec writes,
        List<String> policies,
        long repairFromMillis,
        CephSettings ceph,
        SkewGuardSettings skewguard,
        List<ScenarioEvent> events,
        int probeKeys) {

    /**
     * The policy names the simulator knows: {@code skewguard-nospread} is SkewGuard with its spread
     * rule off (weights and migrations only), to show what spreading adds.
     */
    public static final List<String> POLICIES = List.of("none", "ceph", "skewguard", "skewguard-nospread");

    /** The policies a scenario without {@code policies} compares. */
    public static final List<String> DEFAULT_POLICIES = List.of("none", "ceph", "skewguard");

    public Scenario {
        nodes = List.copyOf(nodes);
        policies = List.copyOf(policies);
        events = List.copyOf(events);
    }

    /** This scenario with another seed. */
    public Scenario withSeed(long newSeed) {
        return new Scenario(name, description, source, newSeed, durationMillis, stepMillis, slots, candidates,
                vnodesPerUnit, nodes, fill, fillHeat, heat, writes, policies, repairFromMillis, ceph, skewguard, events, probeKeys);
    }

    /** This scenario with only the given policies. */
    public Scenario withPolicies(List<String> only) {
        return new Scenario(name, description, source, seed, durationMillis, stepMillis, slots, candidates,
                vnodesPerUnit, nodes, fill, fillHeat, heat, writes, only, repairFromMillis, ceph, skewguard, events, probeKeys);
    }

    /**
     * This scenario cut short at {@code newDurationMillis} (not longer than it is): the events from then
     * on are dropped. For a shorter run of a long scenario, e.g. in a test run.
     */
    public Scenario withDuration(long newDurationMillis) {
        if (newDurationMillis <= 0 || newDurationMillis > durationMillis) {
            throw new IllegalArgumentException("a scenario can only be cut short: " + newDurationMillis
                    + " ms is not in (0, " + durationMillis + "]");
        }
        List<ScenarioEvent> kept = events.stream().filter(e -> e.atMillis() < newDurationMillis).toList();
        return new Scenario(name, description, source, seed, newDurationMillis, stepMillis, slots, candidates,
                vnodesPerUnit, nodes, fill, fillHeat, heat, writes, policies, repairFromMillis, ceph, skewguard, kept, probeKeys);
    }

    /** The first hot spot of the timeline, or null. */
    public ScenarioEvent.HotSpot firstHotSpot() {
        for (ScenarioEvent e : events) {
            if (e instanceof ScenarioEvent.HotSpot h) {
                return h;
            }
        }
        return null;
    }
}
