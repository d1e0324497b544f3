package io.skewguard.schemas.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.header.Headers;

/**
 * Node keys by node id (docs/security.md): the migrator's, for every node, and an agent process's,
 * for the nodes it hosts. Read from a file of {@code node-id=base64key} lines; blank lines and lines
 * starting with {@code #} are skipped. Several lines may name the same node: during a key rotation
 * both the old and the new key are accepted (the first one listed signs).
 *
 * <p>{@link #none()} is the "no keys configured" case: nothing is signed or checked.
 *
 * <p>Operators' keys ({@code operator-keys-file}: who may set the controls of {@code skewguard ctl})
 * are the same kind of file with operator names instead of node ids, read with
 * {@link #read(Path, String)} so that every message says "operator".
 */
public final class NodeKeys {

    private static final NodeKeys NONE = new NodeKeys(Map.of(), "node");

    private final Map<String, List<NodeSignature>> keys;
    /** What the ids name, for messages: "node" or "operator". */
    private final String what;

    private NodeKeys(Map<String, List<NodeSignature>> keys, String what) {
        this.keys = Collections.unmodifiableMap(new TreeMap<>(keys));
        this.what = what;
    }

    /** No keys: node messages are not authenticated. */
    public static NodeKeys none() {
        return NONE;
    }

    /** One node's key (an agent hosting one node). */
    public static NodeKeys single(String node, NodeSignature key) {
        return new NodeKeys(Map.of(node, List.of(key)), "node");
    }

    /**
     * The keys in {@code file}.
     *
     * @throws IllegalArgumentException naming the file and line of what is wrong (never the key)
     */
    public static NodeKeys read(Path file) {
        return read(file, "node");
    }

    /**
     * The keys in {@code file}, whose ids name {@code what} ("node", "operator") in every message.
     *
     * @throws IllegalArgumentException naming the file and line of what is wrong (never the key)
     */
    public static NodeKeys read(Path file, String what) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the " + what + " keys file " + file + ": " + e);
        }
        Map<String, List<NodeSignature>> keys = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            String where = file + " line " + (i + 1);
            String node = eq <= 0 ? "" : line.substring(0, eq).trim();
            if (!node.matches("[A-Za-z0-9._-]+")) {
                // never echo the line: it may hold a key
                throw new IllegalArgumentException(where + ": expected " + what + "-id=base64key (" + what + " id: letters, digits, . _ -)");
            }
            NodeSignature key;
            try {
                key = NodeSignature.fromBase64(line.substring(eq + 1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + " (" + what + " " + node + "): " + e.getMessage());
            }
            keys.computeIfAbsent(node, n -> new java.util.ArrayList<>()).add(key);
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("the " + what + " keys file " + file + " holds no " + what + "-id=base64key line");
        }
        keys.replaceAll((n, list) -> List.copyOf(list));
        return new NodeKeys(keys, what);
    }

    /** Whether any key is configured (else nothing is signed or checked). */
    public boolean configured() {
        return !keys.isEmpty();
    }

    /** The nodes with a key. */
    public Set<String> nodes() {
        return keys.keySet();
    }

    /** The key {@code node} signs with, if it has one. */
    public Optional<NodeSignature> signer(String node) {
        List<NodeSignature> list = keys.get(node);
        return list == null ? Optional.empty() : Optional.of(list.get(0));
    }

    /** Puts {@code node}'s signature of (topic, key, value) in {@code headers}; nothing if the node has no key. */
    public void signInto(String node, Headers headers, String topic, byte[] recordKey, byte[] value) {
        signer(node).ifPresent(s -> s.signInto(headers, topic, recordKey, value));
    }

    /**
     * Why the record is not signed by {@code node} (as {@code "unauthenticated: ..."} text for a
     * dead-letter reason), or empty if one of its keys verifies it.
     */
    public Optional<String> problem(String node, Headers headers, String topic, byte[] recordKey, byte[] value) {
        List<NodeSignature> list = keys.get(node);
        if (list == null) {
            return Optional.of("unauthenticated: no key is configured for " + what + " '" + node + "'");
        }
        String last = null;
        for (NodeSignature key : list) {
            Optional<String> p = key.problem(headers, topic, recordKey, value);
            if (p.isEmpty()) {
                return Optional.empty();
            }
            last = p.get();
        }
        return Optional.of("unauthenticated: " + last + " for " + what + " '" + node + "'");
    }

    /** Node ids only, never a key. */
    @Override
    public String toString() {
        return "NodeKeys" + keys.keySet();
    }
}
