package io.skewguard.sim.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShippedScenariosTest {

    @Test
    void aFileOnDiskIsReadAndItsErrorsNameIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mine.properties");
        Files.writeString(file, "name = mine\nduration = 1d\nnodes.a.count = 2\nnodes.a.capacity = -1TB\nwrites.perDay = 1TB\n");
        assertThatThrownBy(() -> ScenarioLibrary.resolve(file.toString()))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith(file + ":4: ");
    }

    @Test
    void anUnknownNameListsTheShippedOnes() {
        assertThatThrownBy(() -> ScenarioLibrary.resolve("paper-49"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paper-48, paper-48-spreadable, paper-48-peak, join-and-hotspot, node-loss, scale-512");
    }

    @Test
    void theShippedNameResolves() {
        assertThat(ScenarioLibrary.resolve("node-loss").events()).hasSize(1);
    }
}
