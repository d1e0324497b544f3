package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The embedding guide in docs/agents.md shows {@link EmbeddingExample} as it is, not an older copy. */
class EmbeddingGuideTest {

    static final String START = "<!-- embedding-example:start (node-agent/src/test/java/io/skewguard/agent/EmbeddingExample.java) -->";
    static final String END = "<!-- embedding-example:end -->";

    @Test
    void theGuidesCodeIsTheExampleClassVerbatim() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "agents.md"));
        String source = Files.readString(Path.of("src", "test", "java", "io", "skewguard", "agent", "EmbeddingExample.java"));
        int start = doc.indexOf(START);
        int end = doc.indexOf(END);
        assertThat(start).as("the start marker in docs/agents.md").isNotNegative();
        assertThat(end).as("the end marker after the start marker").isGreaterThan(start);
        String block = doc.substring(start + START.length(), end).strip();
        assertThat(block).startsWith("```java\n").endsWith("\n```");
        String shown = block.substring("```java\n".length(), block.length() - "```".length());
        assertThat(shown).as("the code between the markers in docs/agents.md; copy EmbeddingExample.java there")
                .isEqualTo(source);
    }
}
