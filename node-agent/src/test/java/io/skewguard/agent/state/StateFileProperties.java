package io.skewguard.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Role;
import io.skewguard.agent.command.Stage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

/** Whatever the ids and numbers, the state file gives back exactly what was saved. */
class StateFileProperties {

    @Property(tries = 100)
    void anyStateRoundTrips(@ForAll @AlphaChars @StringLength(min = 1, max = 8) String id,
                            @ForAll @StringLength(max = 12) String anyText,
                            @ForAll @IntRange(min = 0, max = 4095) int slot,
                            @ForAll long epoch, @ForAll double weight) throws Exception {
        Path file = Files.createTempFile("agent", ".state");
        try {
            TreeMap<String, MigrationRecord> m = new TreeMap<>();
            m.put(anyText, new MigrationRecord(anyText, id, slot, anyText + "s", id, Role.TARGET, Stage.COPYING, slot, epoch, anyText));
            AgentState state = new AgentState(id, epoch, weight, m);
            new StateFile(file).save(state);
            assertThat(new StateFile(file).load(id)).isEqualTo(state);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
