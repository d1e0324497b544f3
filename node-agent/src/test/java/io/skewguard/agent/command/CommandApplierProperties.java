package io.skewguard.agent.command;

import static io.skewguard.agent.Commands.step;
import static io.skewguard.agent.Commands.weight;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * At-least-once delivery does not change the outcome: duplicates, replays of earlier commands and
 * arbitrary interleavings of different migrations give the agent the same final state as one clean
 * delivery of the coordinator's sequence.
 *
 * <p>Which reorderings are real: weight commands can arrive in any order (the balancer's rounds go
 * out on a topic the agent may read late or again). Within one migration the coordinator sends a
 * step only after the previous answer came back, so a step's first delivery follows the previous
 * step's first delivery; what arrives "out of order" is a repeat of an earlier step after a later
 * one. Different migrations on the same node interleave freely.
 */
class CommandApplierProperties {

    private static final String NODE = "n1";
    private final CommandApplier applier = new CommandApplier();

    // ------------------------------------------------------------------------------------ weights

    @Property
    void weightCommandsInAnyOrderWithDuplicatesEndAtTheNewestEpoch(
            @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 12) Integer> epochs) {
        AgentState state = AgentState.initial(NODE);
        for (int epoch : epochs) {
            state = applier.apply(state, weight(NODE, epoch, weightOf(epoch))).state();
        }
        int newest = epochs.stream().mapToInt(Integer::intValue).max().orElseThrow();
        AgentState clean = applier.apply(AgentState.initial(NODE), weight(NODE, newest, weightOf(newest))).state();
        assertThat(state).isEqualTo(clean);
        assertThat(state.weightEpoch()).isEqualTo(newest);
    }

    /** One weight factor per epoch, as the balancer's deterministic rounds give. */
    private static double weightOf(int epoch) {
        return 0.5 + (epoch * 7 % 16) / 10.0;
    }

    // ------------------------------------------------------------------------------------ migrations

    /** How one migration runs, seen from this node. */
    enum Path { TARGET_COMMIT, TARGET_ABORT_COPYING, TARGET_ABORT_COPIED, TARGET_ABORT_PREPARED,
                SOURCE_COMMIT, SOURCE_ABORT_COPYING, SOURCE_ABORT_PREPARED }

    /** The inputs this node gets for one migration on {@code path}, in the coordinator's order. */
    static List<AgentInput> coordinatorSequence(String id, int slot, Path path) {
        String other = "peer-" + id;
        boolean target = path.name().startsWith("TARGET");
        String source = target ? other : NODE;
        String targetNode = target ? NODE : other;
        List<AgentInput> seq = new ArrayList<>();
        java.util.function.Consumer<MigrationPhase> send =
                phase -> seq.add(new AgentInput.Step(step(phase, id, slot, source, targetNode, NODE, 1000)));
        switch (path) {
            case TARGET_COMMIT -> {
                send.accept(MigrationPhase.COPY);
                seq.add(new AgentInput.CopyProgressed(id, 10));
                seq.add(new AgentInput.CopyCompleted(id, 100 + slot));
                send.accept(MigrationPhase.PREPARE);
                send.accept(MigrationPhase.COMMIT);
            }
            case TARGET_ABORT_COPYING -> {
                send.accept(MigrationPhase.COPY);
                send.accept(MigrationPhase.ABORT);
            }
            case TARGET_ABORT_COPIED -> {
                send.accept(MigrationPhase.COPY);
                seq.add(new AgentInput.CopyCompleted(id, 100 + slot));
                send.accept(MigrationPhase.ABORT);
            }
            case TARGET_ABORT_PREPARED -> {
                send.accept(MigrationPhase.COPY);
                seq.add(new AgentInput.CopyCompleted(id, 100 + slot));
                send.accept(MigrationPhase.PREPARE);
                send.accept(MigrationPhase.ABORT);
            }
            case SOURCE_COMMIT -> {
                send.accept(MigrationPhase.PREPARE);
                send.accept(MigrationPhase.COMMIT);
                send.accept(MigrationPhase.CLEANUP);
            }
            case SOURCE_ABORT_COPYING -> send.accept(MigrationPhase.ABORT);
            case SOURCE_ABORT_PREPARED -> {
                send.accept(MigrationPhase.PREPARE);
                send.accept(MigrationPhase.ABORT);
            }
        }
        return seq;
    }

    static Stage finalStage(Path path) {
        return switch (path) {
            case TARGET_COMMIT -> Stage.COMMITTED;
            case SOURCE_COMMIT -> Stage.CLEANED;
            case TARGET_ABORT_COPYING, TARGET_ABORT_COPIED, TARGET_ABORT_PREPARED, SOURCE_ABORT_COPYING, SOURCE_ABORT_PREPARED -> Stage.ABORTED;
        };
    }

    @Provide
    Arbitrary<List<Path>> paths() {
        return Arbitraries.of(Path.class).list().ofMinSize(1).ofMaxSize(5);
    }

    @Property(tries = 300)
    void duplicatesReplaysAndInterleavingsGiveTheSameFinalStateAsACleanDelivery(
            @ForAll("paths") List<Path> paths, @ForAll long seed) {
        List<List<AgentInput>> perMigration = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            perMigration.add(coordinatorSequence("m" + i, i, paths.get(i)));
        }

        // clean: one migration after the other, each input once
        AgentState clean = AgentState.initial(NODE);
        for (List<AgentInput> seq : perMigration) {
            for (AgentInput input : seq) {
                clean = input.applyTo(applier, clean, 0).state();
            }
        }
        for (int i = 0; i < paths.size(); i++) {
            assertThat(clean.migration("m" + i).stage()).as("clean delivery of %s", paths.get(i)).isEqualTo(finalStage(paths.get(i)));
        }

        // noisy: a random interleaving, with duplicates and replayed windows of what was delivered
        List<AgentInput> noisy = noisyDelivery(perMigration, new Random(seed));
        AgentState state = AgentState.initial(NODE);
        Map<String, List<MigrationStatus>> answers = new HashMap<>();
        long now = 0;
        for (AgentInput input : noisy) {
            Applied applied = input.applyTo(applier, state, now++);
            state = applied.state();
            for (MigrationStatus a : applied.answers()) {
                answers.computeIfAbsent(a.getMigrationId() + "/" + a.getPhase(), k -> new ArrayList<>()).add(a);
            }
        }
        // the finishing time is the clock's at the input that finished it, which differs between the runs
        assertThat(timeless(state)).isEqualTo(timeless(clean));

        // on the commit paths nothing a repeat says ever contradicts the coordinator: no FAILED
        for (int i = 0; i < paths.size(); i++) {
            if (paths.get(i) == Path.TARGET_COMMIT || paths.get(i) == Path.SOURCE_COMMIT) {
                String id = "m" + i;
                answers.forEach((k, list) -> {
                    if (k.startsWith(id + "/")) {
                        assertThat(list).extracting(MigrationStatus::getOutcome).doesNotContain(StepResult.FAILED);
                    }
                });
            }
        }
    }

    /**
     * Interleaves the sequences at random, keeping each one's order, and after each delivery maybe
     * re-delivers one earlier input (a duplicate) or a window of earlier inputs (a consumer replay
     * from an older offset).
     */
    static List<AgentInput> noisyDelivery(List<List<AgentInput>> perMigration, Random random) {
        int[] next = new int[perMigration.size()];
        List<AgentInput> delivered = new ArrayList<>();
        List<AgentInput> out = new ArrayList<>();
        int remaining = perMigration.stream().mapToInt(List::size).sum();
        while (remaining > 0) {
            int m;
            do {
                m = random.nextInt(perMigration.size());
            } while (next[m] >= perMigration.get(m).size());
            AgentInput input = perMigration.get(m).get(next[m]++);
            remaining--;
            delivered.add(input);
            out.add(input);
            int noise = random.nextInt(10);
            if (noise < 3) {
                out.add(delivered.get(random.nextInt(delivered.size())));
            } else if (noise == 3) {
                int from = random.nextInt(delivered.size());
                out.addAll(delivered.subList(from, Math.min(delivered.size(), from + 1 + random.nextInt(4))));
            }
        }
        // and a final replay of everything, as a consumer that lost its committed offsets would do
        if (random.nextBoolean()) {
            out.addAll(delivered);
        }
        return out;
    }

    @Property(tries = 200)
    void everyRepeatOfACommandIsAnsweredLikeItsLastDeliveryWhenNothingHappenedBetween(
            @ForAll("paths") List<Path> paths, @ForAll @IntRange(min = 0, max = 50) int at) {
        List<AgentInput> sequence = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            sequence.addAll(coordinatorSequence("m" + i, i, paths.get(i)));
        }
        int cut = Math.min(at, sequence.size() - 1);
        AgentState state = AgentState.initial(NODE);
        for (AgentInput input : sequence.subList(0, cut)) {
            state = input.applyTo(applier, state, 0).state();
        }
        AgentInput repeated = sequence.get(cut);
        Applied first = repeated.applyTo(applier, state, 1);
        Applied second = repeated.applyTo(applier, first.state(), 2);
        assertThat(second.state()).isEqualTo(first.state());
        if (repeated instanceof AgentInput.Step) {
            assertThat(second.answers()).hasSize(1);
            MigrationStatus a = first.answers().get(0);
            MigrationStatus b = second.answers().get(0);
            // the first COPY answers PROGRESS 0 and so does its repeat; the outcome of every other step is stable
            assertThat(b.getOutcome()).isEqualTo(a.getOutcome());
            assertThat(b.getMessage()).isEqualTo(a.getMessage());
            assertThat(b.getCommandId()).isEqualTo(a.getCommandId());
        }
    }

    /** {@code s} with every finished record's finishing time set to 0. */
    static AgentState timeless(AgentState s) {
        java.util.TreeMap<String, MigrationRecord> records = new java.util.TreeMap<>();
        s.migrations().forEach((id, r) -> records.put(id, new MigrationRecord(r.migrationId(), r.cluster(), r.slot(), r.source(),
                r.target(), r.role(), r.stage(), r.bytesCopied(), r.maxBytesPerSec(), r.copyCommandId(), r.routingEpoch(),
                r.commitEpoch(), r.finished() ? 0 : MigrationRecord.UNKNOWN)));
        return new AgentState(s.node(), s.weightEpoch(), s.weight(), records);
    }
}
