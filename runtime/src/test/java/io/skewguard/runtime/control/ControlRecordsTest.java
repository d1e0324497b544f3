package io.skewguard.runtime.control;

import static io.skewguard.runtime.control.ClusterControlsTest.control;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.schemas.auth.NodeSignature;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlRecordsTest {

    private static final String TOPIC = "skew.control";
    private static final byte[] VALUE = {1, 2, 3};

    private static Optional<String> problem(String key, OperatorControl c) {
        return ControlRecords.problem(key, c, NodeKeys.none(), new RecordHeaders(), TOPIC, key.getBytes(StandardCharsets.UTF_8), VALUE);
    }

    @Test
    void keysNameTheClusterAndTheControl() {
        assertThat(ControlRecords.key("c1", ControlKind.DRY_RUN, null)).isEqualTo("c1/dry-run");
        assertThat(ControlRecords.key("c1", ControlKind.PAUSE, null)).isEqualTo("c1/pause");
        assertThat(ControlRecords.key("c1", ControlKind.THROTTLE, null)).isEqualTo("c1/throttle");
        assertThat(ControlRecords.key("c1", ControlKind.EXCLUDE, "n/7")).isEqualTo("c1/exclude/n/7");
        assertThat(ControlRecords.clusterOf("c1/exclude/n/7")).isEqualTo("c1");
        assertThat(ControlRecords.clusterOf("c1")).isEqualTo("c1");
    }

    @Test
    void wellFormedControlsPass() {
        assertThat(problem("c1/pause", control(ControlKind.PAUSE, true, null, null))).isEmpty();
        assertThat(problem("c1/throttle", control(ControlKind.THROTTLE, true, 1L, null))).isEmpty();
        assertThat(problem("c1/throttle", control(ControlKind.THROTTLE, false, null, null))).isEmpty();
        assertThat(problem("c1/exclude/n7", control(ControlKind.EXCLUDE, false, null, "n7"))).isEmpty();
    }

    @Test
    void aRecordUnderAnotherKeyIsRefusedNamingTheKeyItBelongsTo() {
        assertThat(problem("c1/dry-run", control(ControlKind.PAUSE, true, null, null)).orElseThrow())
                .isEqualTo("invalid: a PAUSE control of cluster 'c1' has key 'c1/pause', not 'c1/dry-run'");
        assertThat(problem("c1/exclude/n8", control(ControlKind.EXCLUDE, true, null, "n7")).orElseThrow())
                .contains("has key 'c1/exclude/n7'");
    }

    @Test
    void inconsistentFieldsAreRefusedWithTheReason() {
        assertThat(problem("c1/throttle", control(ControlKind.THROTTLE, true, null, null)).orElseThrow())
                .startsWith("invalid: THROTTLE on with bytesPerSec null");
        assertThat(problem("c1/throttle", control(ControlKind.THROTTLE, true, 0L, null)).orElseThrow())
                .contains("at least 1 byte/s");
        assertThat(problem("c1/throttle", control(ControlKind.THROTTLE, false, 5L, null)).orElseThrow())
                .contains("only THROTTLE on carries a rate");
        assertThat(problem("c1/pause", control(ControlKind.PAUSE, true, 5L, null)).orElseThrow())
                .contains("only THROTTLE on carries a rate");
        assertThat(problem("c1/exclude/", control(ControlKind.EXCLUDE, true, null, null)).orElseThrow())
                .isEqualTo("invalid: EXCLUDE names no node");
        assertThat(problem("c1/pause", control(ControlKind.PAUSE, true, null, "n1")).orElseThrow())
                .contains("only EXCLUDE names a node");
        OperatorControl slash = OperatorControl.newBuilder(control(ControlKind.PAUSE, true, null, null)).setCluster("a/b").build();
        assertThat(problem("a/b/pause", slash).orElseThrow()).contains("holds '/'");
        OperatorControl nobody = OperatorControl.newBuilder(control(ControlKind.PAUSE, true, null, null)).setOperator("").build();
        assertThat(problem("c1/pause", nobody).orElseThrow()).isEqualTo("invalid: empty operator id");
    }

    @Test
    void withOperatorKeysOnlyARecordSignedByAKnownOperatorCounts(@TempDir Path dir) throws Exception {
        byte[] secret = new byte[32];
        secret[0] = 7;
        Path file = dir.resolve("operators");
        Files.writeString(file, "alice=" + Base64.getEncoder().encodeToString(secret) + "\n");
        NodeKeys keys = NodeKeys.read(file, "operator");
        OperatorControl pause = control(ControlKind.PAUSE, true, null, null);
        byte[] key = "c1/pause".getBytes(StandardCharsets.UTF_8);

        RecordHeaders signed = new RecordHeaders();
        NodeSignature.of(secret).signInto(signed, TOPIC, key, VALUE);
        assertThat(ControlRecords.problem("c1/pause", pause, keys, signed, TOPIC, key, VALUE)).isEmpty();

        assertThat(ControlRecords.problem("c1/pause", pause, keys, new RecordHeaders(), TOPIC, key, VALUE).orElseThrow())
                .startsWith("unauthenticated: ").endsWith("for operator 'alice'");
        OperatorControl mallory = OperatorControl.newBuilder(pause).setOperator("mallory").build();
        assertThat(ControlRecords.problem("c1/pause", mallory, keys, signed, TOPIC, key, VALUE).orElseThrow())
                .isEqualTo("unauthenticated: no key is configured for operator 'mallory'");
        // the same signature over other bytes does not verify
        assertThat(ControlRecords.problem("c1/pause", pause, keys, signed, TOPIC, key, new byte[] {9}).orElseThrow())
                .startsWith("unauthenticated: ");
    }
}
