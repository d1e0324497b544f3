package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.agent.state.StateFileException;
import io.skewguard.agent.store.InMemoryNodeStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the agent refuses before it ever touches Kafka. */
class CommandAgentTest {

    @TempDir
    Path dir;

    private final Map<String, Object> kafka = Map.of("bootstrap.servers", "127.0.0.1:1", "schema.registry.url", "mock://command-agent-test");

    @Test
    void aCorruptStateFileStopsTheAgentFromStartingWithAClearError() throws Exception {
        Path file = dir.resolve("n1.state");
        Files.writeString(file, "skewguard-agent-state 1\nnode n1\nweig");
        AgentSettings settings = AgentSettings.defaults("c1", "n1", file, kafka);
        InMemoryNodeStore store = new InMemoryNodeStore("n1", 256, () -> 0, n -> null);
        assertThatThrownBy(() -> new CommandAgent(settings, store, () -> 0))
                .isInstanceOf(StateFileException.class)
                .hasMessageContaining(file.toAbsolutePath().toString())
                .hasMessageContaining("corrupt");
    }

    @Test
    void anotherNodesStoreIsRefused() {
        AgentSettings settings = AgentSettings.defaults("c1", "n1", dir.resolve("n1.state"), kafka);
        InMemoryNodeStore store = new InMemoryNodeStore("n2", 256, () -> 0, n -> null);
        assertThatThrownBy(() -> new CommandAgent(settings, store, () -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n2");
    }
}
