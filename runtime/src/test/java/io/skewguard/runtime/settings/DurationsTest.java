package io.skewguard.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void readsEveryUnitAndIso8601() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("2w")).isEqualTo(Duration.ofDays(14));
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("pt12h")).isEqualTo(Duration.ofHours(12));
        assertThat(Durations.parse(" 0 ")).isEqualTo(Duration.ZERO);
    }

    @Test
    void bareNumberOtherThanZeroIsRefusedNamingTheAllowedForms() {
        assertThatThrownBy(() -> Durations.parse("1000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no unit").hasMessageContaining("500ms");
    }

    @Test
    void unknownUnitsAndGarbageAreRefused() {
        for (String bad : new String[] {"5 minutes", "10x", "s", "", "PT", "-5s", "1s2"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Property
    void formatIsReadBackAsTheSameDuration(@ForAll @LongRange(min = 0, max = 10L * 86_400_000) long millis) {
        Duration d = Duration.ofMillis(millis);
        assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }

    @Test
    void formatIsShort() {
        assertThat(Durations.format(Duration.ofSeconds(60))).isEqualTo("1m");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofHours(12))).isEqualTo("12h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
    }
}
