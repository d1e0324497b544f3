package io.skewguard.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.agent.service.WriteJournal.LastWrite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteJournalTest {

    @TempDir
    Path dir;

    @Test
    void theLastWriteOfEveryKeyIsItsHighestVersionWithTheNodeThatTookIt() {
        Path file = dir.resolve("sub/load.journal");
        try (WriteJournal journal = WriteJournal.append(file)) {
            journal.written("k1", 10, "n1");
            journal.written("k2", 11, "n2");
            journal.written("k1", 12, "n3");
        }
        assertThat(WriteJournal.lastWrites(file))
                .containsOnly(java.util.Map.entry("k1", new LastWrite(12, "n3")), java.util.Map.entry("k2", new LastWrite(11, "n2")));
    }

    @Test
    void aReopenedJournalAppendsToWhatWasThere() {
        Path file = dir.resolve("load.journal");
        try (WriteJournal first = WriteJournal.append(file)) {
            first.written("k1", 10, "n1");
        }
        try (WriteJournal second = WriteJournal.append(file)) {
            second.written("k2", 20, "n2");
        }
        assertThat(WriteJournal.lastWrites(file)).containsOnlyKeys("k1", "k2");
    }

    @Test
    void eachLineIsInTheFileAsSoonAsItsWriteIsRecordedWithoutClose() throws Exception {
        Path file = dir.resolve("load.journal");
        WriteJournal journal = WriteJournal.append(file);
        journal.written("k1", 10, "n1");
        // a process killed now leaves this line behind
        assertThat(Files.readString(file)).isEqualTo("k1 10 n1\n");
        journal.close();
    }

    @Test
    void aLastLineCutByAKillIsLeftOutAndAGarbledCompleteLineIsAnError() throws Exception {
        Path file = dir.resolve("load.journal");
        Files.writeString(file, "k1 10 n1\nk2 11 n", StandardOpenOption.CREATE);
        assertThat(WriteJournal.lastWrites(file)).containsOnlyKeys("k1");

        Files.writeString(file, "k1 10 n1\nk2 eleven n2\n");
        assertThatThrownBy(() -> WriteJournal.lastWrites(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2 is not 'key version node': k2 eleven n2");
    }
}
