package io.skewguard.agent.command;

import static io.skewguard.agent.Commands.step;
import static io.skewguard.agent.Commands.weight;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.WeightCommand;
import org.junit.jupiter.api.Test;

/** Which commands are dead-lettered instead of applied, and why. */
class CommandCheckTest {

    private final CommandCheck check = new CommandCheck("c1", "n1", 16);

    @Test
    void aSoundCommandForThisNodePasses() {
        assertThat(check.problem(weight("n1", 1, 1.5))).isEmpty();
        for (MigrationPhase phase : MigrationPhase.values()) {
            String source = phase == MigrationPhase.COPY ? "n2" : "n1";
            String target = phase == MigrationPhase.COPY ? "n1" : "n2";
            assertThat(check.problem(step(phase, "m", 3, source, target, "n1"))).as(phase.toString()).isEmpty();
        }
    }

    @Test
    void weightsOutsideTheirRangeOrForAnotherNodeOrClusterAreRejected() {
        assertThat(check.problem(weight("n1", 1, 2.01))).get().asString().contains("outside");
        assertThat(check.problem(weight("n1", 1, Double.NaN))).get().asString().contains("outside");
        assertThat(check.problem(weight("n1", -1, 1.0))).get().asString().contains("negative epoch");
        assertThat(check.problem(weight("n2", 1, 1.0))).get().asString().contains("names node 'n2'");
        WeightCommand otherCluster = WeightCommand.newBuilder(weight("n1", 1, 1.0)).setCluster("c9").build();
        assertThat(check.problem(otherCluster)).get().asString().contains("cluster 'c9'");
    }

    @Test
    void misdirectedOrMalformedMigrationStepsAreRejected() {
        assertThat(check.problem(step(MigrationPhase.COPY, "m", 3, "n1", "n2", "n1"))).get().asString().contains("COPY goes to the target 'n2'");
        assertThat(check.problem(step(MigrationPhase.CLEANUP, "m", 3, "n2", "n1", "n1"))).get().asString().contains("CLEANUP goes to the source 'n2'");
        assertThat(check.problem(step(MigrationPhase.COMMIT, "m", 3, "n2", "n3", "n1"))).get().asString().contains("COMMIT goes to");
        assertThat(check.problem(step(MigrationPhase.PREPARE, "m", 16, "n1", "n2", "n1"))).get().asString().contains("slot 16");
        assertThat(check.problem(step(MigrationPhase.PREPARE, "m", 3, "n1", "n1", "n1"))).get().asString().contains("same node");
        assertThat(check.problem(step(MigrationPhase.PREPARE, "m", 3, "n1", "n2", "n2"))).get().asString().contains("names node 'n2'");
        MigrationCommand negative = MigrationCommand.newBuilder(step(MigrationPhase.COPY, "m", 3, "n2", "n1", "n1")).setMaxBytesPerSec(-1).build();
        assertThat(check.problem(negative)).get().asString().contains("negative");
    }

    @Test
    void everyReasonStartsWithTheInvalidCode() {
        assertThat(check.problem(weight("n2", 1, 1.0))).get().asString().startsWith("invalid: ");
        assertThat(check.problem(step(MigrationPhase.PREPARE, "m", 16, "n1", "n2", "n1"))).get().asString().startsWith("invalid: ");
    }

    @Test
    void aWeightCommandWithoutCommandIdOrWithAnOldWeightThatIsNotANumberIsRefused() {
        WeightCommand noId = WeightCommand.newBuilder(weight("n1", 1, 1.5)).setCommandId("").build();
        assertThat(check.problem(noId)).get().asString().isEqualTo("invalid: weight command has an empty command id");
        WeightCommand nan = WeightCommand.newBuilder(weight("n1", 1, 1.5)).setOldWeight(Double.NaN).build();
        assertThat(check.problem(nan)).get().asString().contains("old weight factor NaN");
    }

    @Test
    void aWeightCommandWithAReasonPastFourKilobytesIsRefusedAndTheReasonIsNotQuoted() {
        WeightCommand huge = WeightCommand.newBuilder(weight("n1", 1, 1.5)).setReason("x".repeat(300 * 1024)).build();
        assertThat(check.problem(huge)).get().asString()
                .isEqualTo("invalid: weight command's reason of 307200 bytes is longer than 4096");
        WeightCommand atBound = WeightCommand.newBuilder(weight("n1", 1, 1.5)).setReason("x".repeat(4096)).build();
        assertThat(check.problem(atBound)).isEmpty();
    }

    @Test
    void aMigrationCommandWithAnOverlongMigrationIdIsRefusedAndItsIdQuotedShort() {
        MigrationCommand tenKb = MigrationCommand.newBuilder(step(MigrationPhase.COPY, "m", 3, "n2", "n1", "n1"))
                .setMigrationId("x".repeat(10 * 1024)).build();
        String reason = check.problem(tenKb).orElseThrow();
        assertThat(reason).startsWith("invalid: migration command has a migration id of 10240 bytes, more than 1024");
        assertThat(reason.length()).isLessThan(300);
        MigrationCommand atBound = MigrationCommand.newBuilder(step(MigrationPhase.COPY, "m", 3, "n2", "n1", "n1"))
                .setMigrationId("x".repeat(1024)).build();
        assertThat(check.problem(atBound)).isEmpty();
    }

    @Test
    void aMigrationCommandWithAnEmptyCommandIdOrANegativeRoutingEpochIsRefused() {
        MigrationCommand noId = MigrationCommand.newBuilder(step(MigrationPhase.COPY, "m", 3, "n2", "n1", "n1")).setCommandId("").build();
        assertThat(check.problem(noId)).get().asString().isEqualTo("invalid: migration command has an empty command id");
        MigrationCommand negative = MigrationCommand.newBuilder(step(MigrationPhase.COPY, "m", 3, "n2", "n1", "n1")).setRoutingEpoch(-1).build();
        assertThat(check.problem(negative)).get().asString().contains("negative routing epoch -1");
    }

    @Test
    void aHugeNodeOrClusterIdIsQuotedShortInTheReason() {
        WeightCommand other = WeightCommand.newBuilder(weight("n1", 1, 1.5)).setNode("y".repeat(300 * 1024)).build();
        assertThat(check.problem(other)).get().asString().hasSizeLessThan(300).contains("(307200 characters)");
    }
}
