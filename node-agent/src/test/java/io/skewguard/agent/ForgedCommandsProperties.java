package io.skewguard.agent;

import static io.skewguard.agent.Commands.CLUSTER;
import static io.skewguard.agent.Commands.step;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.EpochBound;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Forged COMMIT and CLEANUP commands — for migrations that never ran, for the real one with another
 * slot, direction or epoch, at any point of the real migration — never lose a key that the clean
 * run (the real migration alone) keeps. Two nodes with real stores and agents ({@link AgentCore}
 * over {@link InMemoryNodeStore}); n1 holds keys in every slot, the real migration moves one slot
 * to n2.
 */
class ForgedCommandsProperties {

    private static final int SLOTS = 8;
    private static final int KEYS = 40;
    private static final String REAL = "c1/b1/real";

    /** A forged command, and where in the real sequence it is slipped in. */
    record Forgery(int position, String id, MigrationPhase phase, int slot, boolean towardN2, boolean toN1, long epoch) {
        MigrationCommand command() {
            String source = towardN2 ? "n1" : "n2";
            String target = towardN2 ? "n2" : "n1";
            String node = phase == MigrationPhase.CLEANUP ? source : (toN1 ? "n1" : "n2");
            return MigrationCommand.newBuilder(step(phase, id, slot, source, target, node)).setRoutingEpoch(epoch).build();
        }
    }

    @Provide
    Arbitrary<List<Forgery>> forgeries() {
        Arbitrary<Forgery> one = Combinators.combine(
                Arbitraries.integers().between(0, 10),
                Arbitraries.of(REAL, "c1/b9/forged", "c1/b1/other"),
                Arbitraries.of(MigrationPhase.COMMIT, MigrationPhase.CLEANUP),
                Arbitraries.integers().between(0, SLOTS - 1),
                Arbitraries.of(true, false),
                Arbitraries.of(true, false),
                Arbitraries.of(0L, 1L, 2L, 3L, 1_000_000L, Long.MAX_VALUE))
                .as(Forgery::new);
        return one.list().ofMinSize(1).ofMaxSize(12);
    }

    @Property(tries = 300)
    void forgedCommitsAndCleanupsNeverLoseAKeyTheCleanRunKeeps(@ForAll("forgeries") List<Forgery> forged, @ForAll long seed) {
        int slot = new Random(seed).nextInt(SLOTS);
        TreeSet<String> clean = run(slot, List.of());
        TreeSet<String> noisy = run(slot, forged);
        assertThat(noisy).as("keys held after %s", forged).containsAll(clean);
        assertThat(clean).hasSize(KEYS);
    }

    /** Runs the real migration of {@code slot} with {@code forged} slipped in; the keys held on either node after it. */
    private static TreeSet<String> run(int slot, List<Forgery> forged) {
        Map<String, InMemoryNodeStore> stores = new HashMap<>();
        stores.put("n1", new InMemoryNodeStore("n1", SLOTS, () -> 0, stores::get));
        stores.put("n2", new InMemoryNodeStore("n2", SLOTS, () -> 0, stores::get));
        for (int i = 0; i < KEYS; i++) {
            stores.get("n1").put("k" + i, 1, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        Map<String, AgentCore> agents = new HashMap<>();
        for (String node : List.of("n1", "n2")) {
            agents.put(node, new AgentCore(new CommandCheck(CLUSTER, node, SLOTS), stores.get(node), AgentState.initial(node),
                    s -> { }, new EpochBound(1000), Duration.ZERO));
        }
        List<Runnable> real = new ArrayList<>();
        real.add(() -> send(agents, step(MigrationPhase.COPY, REAL, slot, "n1", "n2", "n2")));
        real.add(() -> agents.get("n2").reportCopies(1));
        real.add(() -> send(agents, step(MigrationPhase.PREPARE, REAL, slot, "n1", "n2", "n2")));
        real.add(() -> send(agents, step(MigrationPhase.PREPARE, REAL, slot, "n1", "n2", "n1")));
        real.add(() -> send(agents, step(MigrationPhase.COMMIT, REAL, slot, "n1", "n2", "n1")));
        real.add(() -> send(agents, step(MigrationPhase.COMMIT, REAL, slot, "n1", "n2", "n2")));
        real.add(() -> send(agents, step(MigrationPhase.CLEANUP, REAL, slot, "n1", "n2", "n1")));
        for (int at = 0; at <= real.size(); at++) {
            for (Forgery f : forged) {
                if (Math.min(f.position(), real.size()) == at) {
                    MigrationCommand c = f.command();
                    // what the transport's CommandCheck lets through reaches the agent
                    if (agents.get(c.getNode()).check().problem(c).isEmpty()) {
                        send(agents, c);
                    }
                }
            }
            if (at < real.size()) {
                real.get(at).run();
            }
        }
        TreeSet<String> held = new TreeSet<>();
        for (InMemoryNodeStore store : stores.values()) {
            for (int s = 0; s < SLOTS; s++) {
                held.addAll(store.keys(s));
            }
        }
        return held;
    }

    private static void send(Map<String, AgentCore> agents, MigrationCommand c) {
        agents.get(c.getNode()).apply(new AgentInput.Step(c), 1);
    }
}
