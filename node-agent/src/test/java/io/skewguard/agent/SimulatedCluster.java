package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.Applied;
import io.skewguard.agent.command.CommandApplier;
import io.skewguard.agent.command.StoreAction;
import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.agent.store.StaleRouteException;
import io.skewguard.agent.store.Versioned;
import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small cluster for tests: in-memory stores, one agent (pure applier + state) per node, a slot
 * table, a writer that routes by the table, and the migrator's command order for one migration.
 * The agents are driven exactly as the Kafka loop drives them: decide, carry out the store steps,
 * keep the state.
 */
final class SimulatedCluster {

    static final int SLOTS = 16;
    static final int CANDIDATES = 3;

    final AtomicLong clock = new AtomicLong();
    final Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
    final Map<String, AgentState> agents = new ConcurrentHashMap<>();
    final CommandApplier applier = new CommandApplier();
    final List<MigrationStatus> answers = new ArrayList<>();
    volatile SlotTable table;

    SimulatedCluster(String... nodes) {
        for (String node : nodes) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, clock::get, stores::get));
            agents.put(node, AgentState.initial(node));
        }
        table = SlotTable.fromRing(HashRing.ofIds(nodes), CANDIDATES, SLOTS);
    }

    /** The node a writer picks for {@code key} under {@code t}: a fixed position of the candidate set (stand-in for the router). */
    static String route(SlotTable t, String key) {
        CandidateSet set = t.locate(key);
        int position = (int) Math.floorMod(HashRing.hashKey(key) >>> 32, (long) set.size());
        return t.nodes().id(set.node(position));
    }

    /**
     * Writes through {@code t}; a write refused as stale (the slot moved on from the node it reached,
     * or from the node that node forwards it to) is retried with the current table, as a writer does,
     * until a node takes it.
     */
    void write(SlotTable t, String key, long version, byte[] value) {
        SlotTable by = t;
        for (int attempt = 0; ; attempt++) {
            try {
                stores.get(route(by, key)).put(key, version, value);
                return;
            } catch (StaleRouteException e) {
                if (attempt >= 1000) {
                    throw e;
                }
                by = table;
            }
        }
    }

    /** Reads {@code key} as a reader does: probe the candidate set of the current table, newest version wins. */
    Optional<Versioned> read(String key) {
        Versioned best = null;
        for (String node : table.candidateIds(table.slotOf(key))) {
            Optional<Versioned> v = stores.get(node).get(key);
            if (v.isPresent() && v.get().newerThan(best)) {
                best = v.get();
            }
        }
        return Optional.ofNullable(best);
    }

    /** Delivers one input to {@code node}'s agent: decide, carry out, keep. Returns the answers. */
    synchronized List<MigrationStatus> deliver(String node, AgentInput input) {
        Applied applied = input.applyTo(applier, agents.get(node), clock.get());
        for (StoreAction action : applied.actions()) {
            action.applyTo(stores.get(node));
        }
        agents.put(node, applied.state());
        answers.addAll(applied.answers());
        return applied.answers();
    }

    /** Sends {@code phase} of migration {@code id} to {@code node}, {@code times} times; the answer of each must be {@code expected}. */
    void send(MigrationPhase phase, String id, int slot, String source, String target, String node, long rate, int times,
              StepResult expected) {
        for (int i = 0; i < times; i++) {
            List<MigrationStatus> a = deliver(node, new AgentInput.Step(Commands.step(phase, id, slot, source, target, node, rate)));
            assertThat(a).as("%s of %s to %s", phase, id, node).hasSize(1);
            if (phase != MigrationPhase.COPY) {
                assertThat(a.get(0).getOutcome()).as("%s of %s to %s: %s", phase, id, node, a.get(0).getMessage()).isEqualTo(expected);
            }
        }
    }

    /** Asks the target's store how the copy stands and tells its agent, as the agent loop does every progress interval. */
    CopyProgress.Status reportCopy(String target, String id) {
        CopyProgress p = stores.get(target).copyProgress(id);
        AgentInput input = switch (p.status()) {
            case RUNNING -> new AgentInput.CopyProgressed(id, p.bytesCopied());
            case DONE -> new AgentInput.CopyCompleted(id, p.bytesCopied());
            case FAILED, UNKNOWN -> new AgentInput.CopyFailed(id, String.valueOf(p.message()));
        };
        deliver(target, input);
        return p.status();
    }

    /** A node not in the candidate set of {@code slot}, or null. */
    String outsider(int slot, int pick) {
        List<String> in = table.candidateIds(slot);
        List<String> out = stores.keySet().stream().sorted().filter(n -> !in.contains(n)).toList();
        return out.isEmpty() ? null : out.get(Math.floorMod(pick, out.size()));
    }
}
