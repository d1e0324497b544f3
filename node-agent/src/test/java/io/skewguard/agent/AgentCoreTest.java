package io.skewguard.agent;

import static io.skewguard.agent.Commands.CLUSTER;
import static io.skewguard.agent.Commands.step;
import static io.skewguard.agent.Commands.weight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent without Kafka: decide, carry out on the store, save, answer. */
class AgentCoreTest {

    private static final int SLOTS = 16;

    private final Map<String, InMemoryNodeStore> stores = new HashMap<>();
    private final List<AgentState> saved = new ArrayList<>();

    private InMemoryNodeStore store(String node) {
        return stores.computeIfAbsent(node, n -> new InMemoryNodeStore(n, SLOTS, () -> 0, stores::get));
    }

    private AgentCore core(String node) {
        return new AgentCore(new CommandCheck(CLUSTER, node, SLOTS), store(node), AgentState.initial(node), saved::add);
    }

    @Test
    void aWholeMigrationMovesTheKeyAndEveryChangedStateIsSavedBeforeItsAnswer() {
        InMemoryNodeStore source = store("n1");
        store("n2");
        String key = "k-1";
        int slot = source.slotOf(key);
        source.put(key, 1, "v".getBytes(StandardCharsets.UTF_8));
        AgentCore n1 = core("n1");
        AgentCore n2 = core("n2");

        List<MigrationStatus> copy = n2.apply(new AgentInput.Step(step(MigrationPhase.COPY, "m1", slot, "n1", "n2", "n2")), 10);
        assertThat(copy).singleElement().satisfies(a -> assertThat(a.getOutcome()).isEqualTo(StepResult.PROGRESS));
        assertThat(saved).isNotEmpty();
        assertThat(saved.get(saved.size() - 1)).isEqualTo(n2.state());
        assertThat(n2.state().migration("m1").stage()).isEqualTo(Stage.COPYING);

        List<MigrationStatus> progress = n2.reportCopies(20);
        assertThat(progress).singleElement().satisfies(a -> {
            assertThat(a.getPhase()).isEqualTo(MigrationPhase.COPY);
            assertThat(a.getOutcome()).isEqualTo(StepResult.DONE);
        });
        assertThat(n2.reportCopies(30)).isEmpty(); // nothing copying any more

        for (AgentCore c : List.of(n1, n2)) {
            String node = c.check().node();
            assertThat(c.apply(new AgentInput.Step(step(MigrationPhase.PREPARE, "m1", slot, "n1", "n2", node)), 40))
                    .singleElement().satisfies(a -> assertThat(a.getOutcome()).isEqualTo(StepResult.DONE));
            assertThat(c.apply(new AgentInput.Step(step(MigrationPhase.COMMIT, "m1", slot, "n1", "n2", node)), 50))
                    .singleElement().satisfies(a -> assertThat(a.getOutcome()).isEqualTo(StepResult.DONE));
        }
        assertThat(n1.apply(new AgentInput.Step(step(MigrationPhase.CLEANUP, "m1", slot, "n1", "n2", "n1")), 60))
                .singleElement().satisfies(a -> assertThat(a.getOutcome()).isEqualTo(StepResult.DONE));

        assertThat(stores.get("n2").get(key)).isPresent();
        assertThat(stores.get("n1").get(key)).isEmpty();
        assertThat(n1.state().migration("m1").stage()).isEqualTo(Stage.CLEANED);
    }

    @Test
    void aWeightIsAppliedToTheStoreOnceAndAnOlderEpochChangesNothing() {
        AgentCore n1 = core("n1");
        assertThat(n1.apply(new AgentInput.Weight(weight("n1", 3, 0.8)), 0)).isEmpty();
        assertThat(store("n1").weight()).isEqualTo(0.8);
        int savedBefore = saved.size();
        n1.apply(new AgentInput.Weight(weight("n1", 2, 1.7)), 0);
        assertThat(store("n1").weight()).isEqualTo(0.8);
        assertThat(n1.state().weightEpoch()).isEqualTo(3);
        assertThat(saved).hasSize(savedBefore);
    }

    @Test
    void aFailingStoreLeavesTheStateAsItWasAndTheStepIsAnsweredFailed() {
        InMemoryNodeStore real = store("n2");
        var failing = (io.skewguard.agent.store.NodeStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {io.skewguard.agent.store.NodeStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("startCopy")) {
                        throw new IllegalStateException("disk full");
                    }
                    return method.invoke(real, args);
                });
        AgentCore n2 = new AgentCore(new CommandCheck(CLUSTER, "n2", SLOTS), failing, AgentState.initial("n2"), saved::add);

        List<MigrationStatus> answers = n2.apply(new AgentInput.Step(step(MigrationPhase.COPY, "m1", 3, "n1", "n2", "n2")), 5);

        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.getOutcome()).isEqualTo(StepResult.FAILED);
            assertThat(a.getMessage()).contains("disk full");
            assertThat(a.getEventTime().toEpochMilli()).isEqualTo(5);
        });
        assertThat(n2.state()).isEqualTo(AgentState.initial("n2"));
        assertThat(saved).isEmpty();
    }

    @Test
    void anotherNodesStoreIsRefused() {
        assertThatThrownBy(() -> new AgentCore(new CommandCheck(CLUSTER, "n1", SLOTS), store("n2"), AgentState.initial("n1"), s -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n2");
    }
}
