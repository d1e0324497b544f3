package io.skewguard.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StateLimitsTest {

    private final StateLimits limits = new StateLimits(2, 3, Duration.ofDays(1));

    @Test
    void refusesEmptyOverLongAndControlCharacterIdsAsInvalid() {
        assertThat(StateLimits.checkId("node", "")).contains("invalid: empty node id");
        assertThat(StateLimits.checkId("cluster", null)).contains("invalid: empty cluster id");
        assertThat(StateLimits.checkId("node", "x".repeat(256))).hasValueSatisfying(r -> assertThat(r)
                .startsWith("invalid: node id of 256 bytes"));
        assertThat(StateLimits.checkId("node", "a\u0000b")).hasValueSatisfying(r -> assertThat(r)
                .startsWith("invalid: node id holds control character U+0000"));
        assertThat(StateLimits.checkId("node", "x".repeat(255))).isEmpty();
        assertThat(StateLimits.checkId("cluster", "a/b")).isEmpty();
    }

    @Test
    void anIdThatPassedOncePassesAgainAndABadIdIsRefusedWhateverPassedBefore() {
        String good = new String("node-17"); // its own object, as a decoder's shared id
        assertThat(StateLimits.checkId("node", good)).isEmpty();
        assertThat(StateLimits.checkId("node", good)).isEmpty();
        assertThat(StateLimits.checkId("node", new String("node-17"))).isEmpty();
        // only ids that passed are remembered: a bad id never passes, however often it or a good one is checked
        String good2 = "Aa-1";
        String bad = "BB-\u0001";
        String bad2 = new String(bad);
        for (int i = 0; i < 3; i++) {
            assertThat(StateLimits.checkId("node", good2)).isEmpty();
            assertThat(StateLimits.checkId("node", bad)).isPresent();
            assertThat(StateLimits.checkId("node", bad2)).isPresent();
        }
    }

    @Test
    void countsUtf8BytesNotCharacters() {
        assertThat(StateLimits.checkId("node", "é".repeat(128))).isPresent(); // 256 bytes, 128 chars
        assertThat(StateLimits.checkId("node", "é".repeat(127))).isEmpty();
    }

    @Test
    void refusesTheFirstIdPastEachCapAsOverCapacity() {
        assertThat(limits.overClusters("c", 1)).isEmpty();
        assertThat(limits.overClusters("c", 2)).contains("over-capacity: cluster c would be cluster 3, more than max-clusters 2");
        assertThat(limits.overNodes("c", "n", 2)).isEmpty();
        assertThat(limits.overNodes("c", "n", 3)).hasValueSatisfying(r -> assertThat(r).startsWith("over-capacity: node n"));
    }

    @Test
    void aNodeExpiresOnlyAfterTheWholeExpiry() {
        long day = Duration.ofDays(1).toMillis();
        assertThat(limits.expired(1_000, 1_000 + day)).isFalse();
        assertThat(limits.expired(1_000, 1_001 + day)).isTrue();
    }
}
