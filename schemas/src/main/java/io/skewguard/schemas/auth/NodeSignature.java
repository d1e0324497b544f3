package io.skewguard.schemas.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * One node's key, and the signature made with it on the records that speak for that node
 * (docs/security.md): an HMAC-SHA256 over the record's topic, key and value bytes, carried in the
 * record header {@value #HEADER}.
 *
 * <p>Who holds which key: a node (its agent and reporter) holds its own; the migrator holds every
 * node's. So a record signed with node N's key was written by N or by the migrator: N's statuses
 * and capacity events (checked by the migrator), and the migrator's commands to N (checked by N's
 * agent). Another node cannot produce either.
 *
 * <p>The topic is signed with the bytes so that a signed record copied to another topic does not
 * verify there; each part is length-prefixed so that no two different (topic, key, value) triples
 * give the same signed bytes. A replayed record verifies: replays are harmless because every
 * answer and command is idempotent (docs/agents.md).
 *
 * <p>Immutable and thread safe (a {@link Mac} is made per call; they are cheap and not shareable).
 */
public final class NodeSignature {

    /** The record header holding the signature (32 raw bytes). */
    public static final String HEADER = "skew.sig";
    /** Shortest key accepted: 256 bits, the HMAC-SHA256 output size. */
    public static final int MIN_KEY_BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;

    private NodeSignature(byte[] key) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("a node key must have at least " + MIN_KEY_BYTES + " bytes, this one has "
                    + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /**
     * The signature of the key in {@code base64} (standard alphabet, padding optional).
     *
     * @throws IllegalArgumentException if it is not base64 or decodes to fewer than {@value #MIN_KEY_BYTES} bytes
     *     (the message never contains the key)
     */
    public static NodeSignature fromBase64(String base64) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a node key must be base64: " + e.getMessage());
        }
        return new NodeSignature(bytes);
    }

    /** The signature of raw {@code key} bytes (at least {@value #MIN_KEY_BYTES}). */
    public static NodeSignature of(byte[] key) {
        return new NodeSignature(key);
    }

    /** The signature of (topic, key, value); null key or value sign as absent, distinct from empty. */
    public byte[] sign(String topic, byte[] recordKey, byte[] value) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            part(mac, topic.getBytes(StandardCharsets.UTF_8));
            part(mac, recordKey);
            part(mac, value);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Puts the signature of (topic, key, value) in {@code headers}, replacing any there was. */
    public void signInto(Headers headers, String topic, byte[] recordKey, byte[] value) {
        headers.remove(HEADER);
        headers.add(HEADER, sign(topic, recordKey, value));
    }

    /**
     * Why the record (topic, key, value, headers) is not signed with this key, or empty if it is.
     * The comparison takes the same time whatever the bytes.
     */
    public Optional<String> problem(Headers headers, String topic, byte[] recordKey, byte[] value) {
        Header header = headers == null ? null : headers.lastHeader(HEADER);
        if (header == null || header.value() == null) {
            return Optional.of("no " + HEADER + " header");
        }
        if (!MessageDigest.isEqual(header.value(), sign(topic, recordKey, value))) {
            return Optional.of("the " + HEADER + " signature does not match");
        }
        return Optional.empty();
    }

    private static void part(Mac mac, byte[] bytes) {
        mac.update(ByteBuffer.allocate(4).putInt(bytes == null ? -1 : bytes.length).array());
        if (bytes != null) {
            mac.update(bytes);
        }
    }

    /** Never the key. */
    @Override
    public String toString() {
        return "NodeSignature[HmacSHA256, key hidden]";
    }
}
