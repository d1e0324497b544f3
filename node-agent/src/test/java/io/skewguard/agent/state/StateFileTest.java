package io.skewguard.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Role;
import io.skewguard.agent.command.Stage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's state survives a restart; a damaged file is a clear error, never a silent fresh start. */
class StateFileTest {

    @TempDir
    Path dir;

    private static AgentState sample() {
        TreeMap<String, MigrationRecord> m = new TreeMap<>();
        m.put("c1/b1/7@n2", new MigrationRecord("c1/b1/7@n2", "c1", 7, "n2", "n1", Role.TARGET, Stage.COMMITTED, 123_456, 1000, "c1/b1/7@n2/COPY/n1"));
        m.put("c1/b2/3@n1", new MigrationRecord("c1/b2/3@n1", "c1", 3, "n1", "n9", Role.SOURCE, Stage.ABORTED, 0, 0, ""));
        m.put("odd id with spaces\nand ~ tilde", new MigrationRecord("odd id with spaces\nand ~ tilde", "c 1", 0, "a b", "ü", Role.SOURCE, Stage.CLEANED, 0, 0, "~"));
        return new AgentState("n1", 12, 1.0500000000000003, m);
    }

    @Test
    void whatWasSavedIsWhatAnotherProcessLoads() {
        Path file = dir.resolve("agent.state");
        new StateFile(file).save(sample());
        assertThat(new StateFile(file).load("n1")).isEqualTo(sample());
    }

    @Test
    void withoutAFileTheAgentStartsWithNothingApplied() {
        assertThat(new StateFile(dir.resolve("none")).load("n1")).isEqualTo(AgentState.initial("n1"));
    }

    @Test
    void aSaveReplacesThePreviousStateAndLeavesNoTemporaryFile() {
        Path file = dir.resolve("agent.state");
        StateFile states = new StateFile(file);
        states.save(AgentState.initial("n1"));
        states.save(sample());
        assertThat(states.load("n1")).isEqualTo(sample());
        assertThat(dir.resolve("agent.state.tmp")).doesNotExist();
    }

    @Test
    void aHalfWrittenTemporaryFileOfAnInterruptedSaveIsIgnoredAndRemoved() throws Exception {
        Path file = dir.resolve("agent.state");
        new StateFile(file).save(sample());
        byte[] next = StateFile.encode(AgentState.initial("n1"));
        Files.write(dir.resolve("agent.state.tmp"), Arrays.copyOf(next, next.length / 2)); // crash mid-write
        assertThat(new StateFile(file).load("n1")).isEqualTo(sample());
        assertThat(dir.resolve("agent.state.tmp")).doesNotExist();
    }

    @Test
    void aTruncatedFileIsAClearError() throws Exception {
        Path file = dir.resolve("agent.state");
        byte[] bytes = StateFile.encode(sample());
        for (int cut : new int[] {0, 10, bytes.length / 2, bytes.length - 1}) {
            Files.write(file, Arrays.copyOf(bytes, cut));
            assertThatThrownBy(() -> new StateFile(file).load("n1"))
                    .as("cut at %d", cut)
                    .isInstanceOf(StateFileException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("corrupt");
        }
    }

    @Test
    void aFlippedByteIsCaughtByTheChecksum() throws Exception {
        Path file = dir.resolve("agent.state");
        byte[] bytes = StateFile.encode(sample());
        int at = new String(bytes, StandardCharsets.UTF_8).indexOf("COMMITTED");
        bytes[at] = 'X';
        Files.write(file, bytes);
        assertThatThrownBy(() -> new StateFile(file).load("n1"))
                .isInstanceOf(StateFileException.class).hasMessageContaining("checksum mismatch");
    }

    @Test
    void anotherNodesFileIsRefused() {
        Path file = dir.resolve("agent.state");
        new StateFile(file).save(sample());
        assertThatThrownBy(() -> new StateFile(file).load("n2"))
                .isInstanceOf(StateFileException.class).hasMessageContaining("belongs to node n1");
    }

    @Test
    void epochsAndFinishingTimesSurviveARestart() {
        Path file = dir.resolve("agent.state");
        TreeMap<String, MigrationRecord> m = new TreeMap<>();
        m.put("m1", new MigrationRecord("m1", "c1", 7, "n1", "n2", Role.SOURCE, Stage.CLEANED, 0, 0, "", 41, 42, 1_700_000_000_000L));
        m.put("m2", new MigrationRecord("m2", "c1", 8, "n1", "n2", Role.SOURCE, Stage.PREPARED, 0, 0, "", 43, -1, -1));
        AgentState state = new AgentState("n1", 3, 1.0, m);
        new StateFile(file).save(state);
        assertThat(new StateFile(file).load("n1")).isEqualTo(state);
    }

    @Test
    void aVersionOneFileIsReadWithEpochsAndFinishingTimesUnknown() throws Exception {
        Path file = dir.resolve("agent.state");
        String body = "skewguard-agent-state 1\nnode n1\nweight 12 1.5\n"
                + "migration m1 c1 7 n2 n1 TARGET COMMITTED 100 1000 m1%2FCOPY%2Fn1\n";
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(file, body + "end 1 " + Long.toHexString(crc.getValue()) + "\n");

        AgentState loaded = new StateFile(file).load("n1");
        assertThat(loaded.migration("m1")).isEqualTo(
                new MigrationRecord("m1", "c1", 7, "n2", "n1", Role.TARGET, Stage.COMMITTED, 100, 1000, "m1/COPY/n1"));
        assertThat(loaded.migration("m1").routingEpoch()).isEqualTo(MigrationRecord.UNKNOWN);
    }
}
