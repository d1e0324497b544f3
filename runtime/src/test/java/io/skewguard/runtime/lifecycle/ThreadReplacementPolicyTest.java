package io.skewguard.runtime.lifecycle;

import static io.skewguard.runtime.lifecycle.ThreadReplacementPolicy.Decision.REPLACE;
import static io.skewguard.runtime.lifecycle.ThreadReplacementPolicy.Decision.SHUTDOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ThreadReplacementPolicyTest {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);

    @Test
    void replacesUpToTheLimitWithinTheWindowThenShutsDown() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(3, WINDOW);

        assertThat(policy.decide(T0)).isEqualTo(REPLACE);
        assertThat(policy.decide(T0.plusSeconds(60))).isEqualTo(REPLACE);
        assertThat(policy.decide(T0.plusSeconds(120))).isEqualTo(REPLACE);
        assertThat(policy.decide(T0.plusSeconds(180))).isEqualTo(SHUTDOWN);
    }

    @Test
    void failuresAtTheSameInstantCountOneByOne() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(2, WINDOW);

        assertThat(policy.decide(T0)).isEqualTo(REPLACE);
        assertThat(policy.decide(T0)).isEqualTo(REPLACE);
        assertThat(policy.decide(T0)).isEqualTo(SHUTDOWN);
    }

    @Test
    void aReplacementOlderThanTheWindowNoLongerCounts() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(3, WINDOW);
        policy.decide(T0);
        policy.decide(T0.plusSeconds(300));
        policy.decide(T0.plusSeconds(400));

        // the first replacement left the window 1 ms ago: one slot free again
        assertThat(policy.decide(T0.plus(WINDOW).plusMillis(1))).isEqualTo(REPLACE);
        assertThat(policy.decide(T0.plus(WINDOW).plusMillis(2))).isEqualTo(SHUTDOWN);
    }

    @Test
    void aReplacementExactlyOneWindowAgoHasLeftTheWindow() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(1, WINDOW);
        policy.decide(T0);

        assertThat(policy.decide(T0.plus(WINDOW).minusMillis(1))).isEqualTo(SHUTDOWN);
        assertThat(policy.decide(T0.plus(WINDOW))).isEqualTo(REPLACE);
    }

    @Test
    void aShutdownDecisionIsNotCountedAsAReplacement() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(1, WINDOW);
        policy.decide(T0);
        assertThat(policy.decide(T0.plusSeconds(1))).isEqualTo(SHUTDOWN);

        assertThat(policy.replacementsWithinWindow(T0.plusSeconds(2))).isEqualTo(1);
        assertThat(policy.decide(T0.plus(WINDOW))).isEqualTo(REPLACE);
    }

    @Test
    void zeroReplacementsShutsDownOnTheFirstFailure() {
        assertThat(new ThreadReplacementPolicy(0, WINDOW).decide(T0)).isEqualTo(SHUTDOWN);
    }

    @Test
    void countsTheReplacementsStillWithinTheWindow() {
        ThreadReplacementPolicy policy = new ThreadReplacementPolicy(3, WINDOW);
        policy.decide(T0);
        policy.decide(T0.plusSeconds(400));

        assertThat(policy.replacementsWithinWindow(T0.plusSeconds(500))).isEqualTo(2);
        assertThat(policy.replacementsWithinWindow(T0.plus(WINDOW).plusSeconds(1))).isEqualTo(1);
    }

    @Test
    void defaultsAreThreeReplacementsWithinTenMinutes() {
        ThreadReplacementPolicy policy = ThreadReplacementPolicy.defaults();

        assertThat(policy.maxReplacements()).isEqualTo(3);
        assertThat(policy.window()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void rejectsANegativeLimitAndAnEmptyWindow() {
        assertThatThrownBy(() -> new ThreadReplacementPolicy(-1, WINDOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxReplacements");
        assertThatThrownBy(() -> new ThreadReplacementPolicy(3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> new ThreadReplacementPolicy(3, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
    }
}
