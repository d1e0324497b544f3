package io.skewguard.embedded;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * The users an {@link EmbeddedKafka} in SASL mode accepts, and the settings derived from them: the
 * SCRAM credentials written at format time, the broker's JAAS settings, and a client's settings.
 *
 * <p>Every user exists twice, once per mechanism the client listener offers: as a SCRAM-SHA-256
 * credential in the cluster metadata (so it survives a restart with the data) and as a
 * {@code user_NAME="password"} option of the PLAIN login module in the broker's configuration
 * (regenerated on every start). The broker itself authenticates to its own listener (transaction
 * markers go through the inter-broker listener even on one node) as the internal admin user, with
 * PLAIN, so that it never depends on SCRAM credentials it is still loading from its metadata log.
 *
 * <p>Names and passwords are restricted to characters that need no quoting in the format
 * arguments ({@code name=…,password=…}), in a JAAS option value ({@code "…"}) or a JAAS option name
 * ({@code user_NAME}).
 */
final class SaslUsers {

    static final String SCRAM_MECHANISM = "SCRAM-SHA-256";
    static final String PLAIN_MECHANISM = "PLAIN";
    /** The user the broker and {@link EmbeddedKafka}'s own helpers authenticate as. */
    static final String ADMIN = "skewguard-embedded-admin";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    /** Printable ASCII without blanks, quotes, backslashes and commas. */
    private static final Pattern PASSWORD = Pattern.compile("[\\x21\\x23-\\x2B\\x2D-\\x5B\\x5D-\\x7E]+");

    /** Name to password, the admin first, in declaration order. */
    private final Map<String, String> passwords;

    private SaslUsers(Map<String, String> declared) {
        Map<String, String> all = new LinkedHashMap<>();
        // random per broker, so that no test can lean on the admin's password instead of its own user's
        all.put(ADMIN, UUID.randomUUID().toString());
        all.putAll(declared);
        this.passwords = Collections.unmodifiableMap(all);
    }

    /** The admin plus {@code declared} (name to password, already checked with {@link #check}). */
    static SaslUsers of(Map<String, String> declared) {
        return new SaslUsers(declared);
    }

    /**
     * Checks one declared user against {@code declaredSoFar}.
     *
     * @throws IllegalArgumentException naming what is wrong: an unusable character, a name declared
     *                                  twice, or the reserved admin name
     */
    static void check(String name, String password, Map<String, String> declaredSoFar) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("SASL user name must be letters, digits, '_', '.' or '-'"
                    + " (not starting with '_', '.' or '-'), was " + (name == null ? "null" : "'" + name + "'"));
        }
        if (name.equals(ADMIN)) {
            throw new IllegalArgumentException("SASL user name '" + ADMIN + "' is reserved for the test kit's own clients");
        }
        if (declaredSoFar.containsKey(name)) {
            throw new IllegalArgumentException("SASL user '" + name + "' is declared twice");
        }
        if (password == null || !PASSWORD.matcher(password).matches()) {
            throw new IllegalArgumentException("password of SASL user '" + name + "' must be non-empty printable ASCII"
                    + " without blanks, '\"', '\\' or ','");
        }
    }

    /** The declared users' names (not the admin), in declaration order. */
    List<String> declaredNames() {
        return passwords.keySet().stream().filter(n -> !n.equals(ADMIN)).toList();
    }

    /** What {@code kafka-storage.sh format --add-scram} takes, one argument per user. */
    List<String> scramFormatArguments() {
        return passwords.entrySet().stream()
                .map(e -> SCRAM_MECHANISM + "=[name=" + e.getKey() + ",password=" + e.getValue() + "]")
                .toList();
    }

    /**
     * The broker settings that put SASL with SCRAM-SHA-256 and PLAIN on {@code listener} (a listener
     * whose security protocol is SASL_PLAINTEXT and which is also the inter-broker listener).
     */
    Map<String, String> brokerProperties(String listener) {
        String prefix = "listener.name." + listener.toLowerCase(Locale.ROOT) + ".";
        StringBuilder plain = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
                .append(" username=\"").append(ADMIN).append("\" password=\"").append(passwords.get(ADMIN)).append('"');
        passwords.forEach((name, password) -> plain.append(" user_").append(name).append("=\"").append(password).append('"'));
        plain.append(';');
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sasl.enabled.mechanisms", SCRAM_MECHANISM + "," + PLAIN_MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", PLAIN_MECHANISM);
        p.put(prefix + PLAIN_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config", plain.toString());
        // the server side of SCRAM reads the credentials from the metadata; its JAAS entry carries no options
        p.put(prefix + SCRAM_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        return p;
    }

    /**
     * The broker settings that put SASL with PLAIN on the controller listener {@code listener}, which
     * only this process reaches: the broker's side as a client (as the admin) and the controller's side
     * as a server that accepts only the admin.
     */
    Map<String, String> controllerProperties(String listener) {
        String prefix = "listener.name." + listener.toLowerCase(Locale.ROOT) + ".";
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sasl.mechanism.controller.protocol", PLAIN_MECHANISM);
        p.put(prefix + "sasl.enabled.mechanisms", PLAIN_MECHANISM);
        p.put(prefix + PLAIN_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"" + ADMIN + "\" password=\"" + passwords.get(ADMIN) + "\""
                        + " user_" + ADMIN + "=\"" + passwords.get(ADMIN) + "\";");
        return p;
    }

    /**
     * Exactly the settings a client needs to connect as {@code name} with SCRAM-SHA-256.
     *
     * @throws IllegalArgumentException if {@code name} is not a user of this broker
     */
    Map<String, String> clientProperties(String bootstrapServers, String name) {
        String password = passwords.get(name);
        if (password == null) {
            throw new IllegalArgumentException("no SASL user '" + name + "'; declared users: " + declaredNames());
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, SCRAM_MECHANISM);
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + name + "\" password=\"" + password + "\";");
        return Collections.unmodifiableMap(p);
    }
}
