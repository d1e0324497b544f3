package io.skewguard.agent;

import static io.skewguard.agent.Commands.CLUSTER;
import static io.skewguard.agent.Commands.step;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.EpochBound;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent's state does not grow with every migration ever run: a finished record is kept for
 * {@code finished-migration-retention} (so a redelivered command of its migration is answered as
 * before) and then dropped; running migrations are never dropped.
 */
class FinishedMigrationPruningTest {

    private static final int SLOTS = 16;
    private static final Duration KEEP = Duration.ofDays(8);

    private final Map<String, InMemoryNodeStore> stores = new HashMap<>();
    private final List<AgentState> saved = new ArrayList<>();

    private AgentCore core(String node) {
        stores.computeIfAbsent("n1", n -> new InMemoryNodeStore(n, SLOTS, () -> 0, stores::get));
        stores.computeIfAbsent("n2", n -> new InMemoryNodeStore(n, SLOTS, () -> 0, stores::get));
        return new AgentCore(new CommandCheck(CLUSTER, node, SLOTS), stores.get(node), AgentState.initial(node), saved::add,
                EpochBound.defaults(), KEEP);
    }

    @Test
    void aFinishedRecordAnswersRepeatsWithinTheRetentionAndIsPrunedAfterItWhileARunningOneStays() {
        AgentCore n1 = core("n1");
        long t0 = 1_000_000;
        n1.apply(new AgentInput.Step(step(MigrationPhase.ABORT, "aborted", 1, "n1", "n2", "n1")), t0);
        n1.apply(new AgentInput.Step(step(MigrationPhase.PREPARE, "running", 2, "n1", "n2", "n1")), t0);
        assertThat(n1.state().migration("aborted").stage()).isEqualTo(Stage.ABORTED);

        // within the retention a redelivered PREPARE still meets the tombstone: refused, not restarted
        long within = t0 + KEEP.toMillis() - 1;
        List<MigrationStatus> repeat = n1.apply(new AgentInput.Step(step(MigrationPhase.PREPARE, "aborted", 1, "n1", "n2", "n1")), within);
        assertThat(repeat).singleElement().satisfies(a -> assertThat(a.getOutcome()).isEqualTo(StepResult.FAILED));
        assertThat(n1.state().migrations()).containsOnlyKeys("aborted", "running");

        // past it the next copy report prunes the finished record, saved; the running one stays
        int savedBefore = saved.size();
        n1.reportCopies(t0 + KEEP.toMillis() + 1);
        assertThat(n1.state().migrations()).containsOnlyKeys("running");
        assertThat(saved).hasSize(savedBefore + 1);
        assertThat(saved.get(saved.size() - 1)).isEqualTo(n1.state());
    }

    @Test
    void theTargetsRecordFinishesAtItsCommitAndTheSourcesAtItsCleanup() {
        AgentCore n1 = core("n1");
        long t0 = 5_000;
        n1.apply(new AgentInput.Step(step(MigrationPhase.PREPARE, "m", 3, "n1", "n2", "n1")), t0);
        n1.apply(new AgentInput.Step(step(MigrationPhase.COMMIT, "m", 3, "n1", "n2", "n1")), t0 + 1);
        assertThat(n1.state().migration("m").finished()).isFalse();
        n1.reportCopies(t0 + KEEP.toMillis() * 2);
        assertThat(n1.state().migration("m")).isNotNull();

        n1.apply(new AgentInput.Step(step(MigrationPhase.CLEANUP, "m", 3, "n1", "n2", "n1")), t0 + 2);
        assertThat(n1.state().migration("m").finishedAt()).isEqualTo(t0 + 2);
    }

    @Test
    void aRetentionOfZeroKeepsEveryRecord() {
        stores.put("n1", new InMemoryNodeStore("n1", SLOTS, () -> 0, stores::get));
        AgentCore n1 = new AgentCore(new CommandCheck(CLUSTER, "n1", SLOTS), stores.get("n1"), AgentState.initial("n1"),
                saved::add, EpochBound.defaults(), Duration.ZERO);
        n1.apply(new AgentInput.Step(step(MigrationPhase.ABORT, "aborted", 1, "n1", "n2", "n1")), 0);
        n1.reportCopies(Long.MAX_VALUE / 2);
        assertThat(n1.state().migrations()).containsOnlyKeys("aborted");
    }
}
