package io.skewguard.schemas.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeKeysTest {

    private static final String N1 = Base64.getEncoder().encodeToString(filled(32, 1));
    private static final String N1_NEXT = Base64.getEncoder().encodeToString(filled(40, 7));
    private static final String N2 = Base64.getEncoder().encodeToString(filled(32, 2));
    private static final byte[] KEY = "n1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VALUE = {0, 0, 0, 0, 1, 2, 3};

    @TempDir
    Path dir;

    @Test
    void aRecordSignedWithTheNodesKeyVerifiesAndAnyChangeDoesNot() throws Exception {
        NodeKeys keys = NodeKeys.read(file("n1=" + N1, "n2=" + N2));
        RecordHeaders headers = new RecordHeaders();
        keys.signInto("n1", headers, "skew.migration-status", KEY, VALUE);

        assertThat(keys.problem("n1", headers, "skew.migration-status", KEY, VALUE)).isEmpty();
        assertThat(keys.problem("n2", headers, "skew.migration-status", KEY, VALUE))
                .hasValueSatisfying(p -> assertThat(p).startsWith("unauthenticated: ").contains("does not match"));
        assertThat(keys.problem("n1", headers, "skew.node-capacity", KEY, VALUE)).isPresent();
        byte[] flipped = VALUE.clone();
        flipped[6] ^= 1;
        assertThat(keys.problem("n1", headers, "skew.migration-status", KEY, flipped)).isPresent();
        assertThat(keys.problem("n1", headers, "skew.migration-status", null, VALUE)).isPresent();
    }

    @Test
    void anUnsignedRecordOrAnUnknownNodeIsUnauthenticated() throws Exception {
        NodeKeys keys = NodeKeys.read(file("n1=" + N1));
        assertThat(keys.problem("n1", new RecordHeaders(), "t", KEY, VALUE)).contains("unauthenticated: no skew.sig header for node 'n1'");
        assertThat(keys.problem("n9", new RecordHeaders(), "t", KEY, VALUE))
                .contains("unauthenticated: no key is configured for node 'n9'");
    }

    @Test
    void duringARotationBothKeysOfANodeVerifyAndTheFirstListedSigns() throws Exception {
        NodeKeys old = NodeKeys.read(file("n1=" + N1));
        NodeKeys both = NodeKeys.read(file("n1=" + N1_NEXT, "n1=" + N1));
        RecordHeaders byOld = new RecordHeaders();
        old.signInto("n1", byOld, "t", KEY, VALUE);
        RecordHeaders byBoth = new RecordHeaders();
        both.signInto("n1", byBoth, "t", KEY, VALUE);

        assertThat(both.problem("n1", byOld, "t", KEY, VALUE)).isEmpty();
        assertThat(both.problem("n1", byBoth, "t", KEY, VALUE)).isEmpty();
        assertThat(old.problem("n1", byBoth, "t", KEY, VALUE)).isPresent();
    }

    @Test
    void aShortOrMalformedKeyIsRefusedNamingTheLineButNotTheKey() throws Exception {
        String shortKey = Base64.getEncoder().encodeToString(filled(16, 3));
        assertThatThrownBy(() -> NodeKeys.read(file("# keys", "n1=" + N1, "n2=" + shortKey)))
                .hasMessageContaining("line 3").hasMessageContaining("at least 32 bytes").hasMessageNotContaining(shortKey);
        assertThatThrownBy(() -> NodeKeys.read(file("n1 " + N1))).hasMessageContaining("line 1: expected node-id=base64key");
        assertThatThrownBy(() -> NodeKeys.read(file("n1=%%%"))).hasMessageContaining("base64");
        assertThatThrownBy(() -> NodeKeys.read(file("# nothing"))).hasMessageContaining("holds no");
        assertThatThrownBy(() -> NodeKeys.read(dir.resolve("missing"))).hasMessageContaining("cannot read");
    }

    @Test
    void noKeysSignNothingAndNeverShowAKey() throws Exception {
        RecordHeaders headers = new RecordHeaders();
        NodeKeys.none().signInto("n1", headers, "t", KEY, VALUE);
        assertThat(headers.toArray()).isEmpty();
        assertThat(NodeKeys.none().configured()).isFalse();
        assertThat(NodeKeys.read(file("n1=" + N1)).toString()).isEqualTo("NodeKeys[n1]");
        assertThat(NodeSignature.fromBase64(N1).toString()).doesNotContain(N1);
    }

    private Path file(String... lines) throws Exception {
        Path f = Files.createTempFile(dir, "keys", ".txt");
        Files.write(f, Arrays.asList(lines));
        return f;
    }

    private static byte[] filled(int n, int b) {
        byte[] bytes = new byte[n];
        Arrays.fill(bytes, (byte) b);
        return bytes;
    }
}
