package io.skewguard.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.OperatorControl;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterControlsTest {

    static OperatorControl control(ControlKind kind, boolean on, Long rate, String node) {
        return OperatorControl.newBuilder().setCluster("c1").setControl(kind).setEnabled(on).setBytesPerSec(rate).setNode(node)
                .setOperator("alice").setUpdatedAt(Instant.EPOCH).build();
    }

    @Test
    void nothingSetMeansTheAppsActOnTheirOwn() {
        assertThat(ClusterControls.NONE.dryRun()).isFalse();
        assertThat(ClusterControls.NONE.paused()).isFalse();
        assertThat(ClusterControls.NONE.throttled()).isFalse();
        assertThat(ClusterControls.NONE.excluded()).isEmpty();
        assertThat(ClusterControls.NONE.describe()).isEqualTo("none");
    }

    @Test
    void eachRecordSetsItsOwnControlAndLeavesTheOthers() {
        ClusterControls c = ClusterControls.of(List.of(
                control(ControlKind.DRY_RUN, true, null, null),
                control(ControlKind.PAUSE, true, null, null),
                control(ControlKind.THROTTLE, true, 52_428_800L, null),
                control(ControlKind.EXCLUDE, true, null, "n7"),
                control(ControlKind.EXCLUDE, true, null, "n1")));
        assertThat(c).isEqualTo(new ClusterControls(true, true, 52_428_800L, new java.util.TreeSet<>(List.of("n1", "n7"))));
        assertThat(c.describe()).isEqualTo("dry run, paused, throttle 50.0 MiB/s, excluded n1, n7");

        ClusterControls off = c.with(control(ControlKind.THROTTLE, false, null, null))
                .with(control(ControlKind.EXCLUDE, false, null, "n7"))
                .with(control(ControlKind.PAUSE, false, null, null));
        assertThat(off.throttled()).isFalse();
        assertThat(off.excludes("n7")).isFalse();
        assertThat(off.excludes("n1")).isTrue();
        assertThat(off.paused()).isFalse();
        assertThat(off.dryRun()).isTrue();
    }

    @Test
    void theExcludedSetCannotBeChangedFromOutside() {
        ClusterControls c = ClusterControls.NONE.with(control(ControlKind.EXCLUDE, true, null, "n1"));
        assertThatThrownBy(() -> c.excluded().add("n2")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void ratesReadForPeople() {
        assertThat(ClusterControls.rate(512)).isEqualTo("512 B/s");
        assertThat(ClusterControls.rate(100L * 1024 * 1024)).isEqualTo("100.0 MiB/s");
        assertThat(ClusterControls.rate(1536L * 1024 * 1024)).isEqualTo("1.5 GiB/s");
    }
}
