package io.skewguard.runtime.settings;

import io.skewguard.schemas.serde.SchemaRegistrySerdeConfig;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Which keys each Kafka client knows, which of them are secret, and how a value is shown without
 * its secret. Kafka's own key names are taken from the clients' {@code ConfigDef}s, so a key is
 * known exactly when the Kafka version on the class path knows it.
 */
public final class KafkaKeys {

    /** Keys of SkewGuard's schema-registry serde (Confluent's names), as the serde declares them. */
    public static final List<String> SERDE_KEYS = SchemaRegistrySerdeConfig.KEYS;

    /** Prefixes that address one kind of client inside an app ({@code consumer.max.poll.records}). */
    public static final Map<String, ClientType> CLIENT_PREFIXES = prefixes();

    /** Streams-only prefixes (passed to Kafka Streams as they are). */
    private static final List<String> STREAMS_PREFIXES = List.of(
            StreamsConfig.MAIN_CONSUMER_PREFIX, StreamsConfig.RESTORE_CONSUMER_PREFIX,
            StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.TOPIC_PREFIX);

    private static final Pattern SECRET_NAME = Pattern.compile(".*(password|secret|jaas|user\\.info|credential(?!s\\.source)).*");
    private static final Pattern URL_USER_INFO = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\\s]+@");

    private static final Map<ClientType, Set<String>> KNOWN = known();
    private static final Set<String> SECRET_TYPED = secretTyped();
    private static final Set<String> ALL = union();

    private KafkaKeys() {
    }

    /** The keys {@code type} knows, without prefixes. */
    public static Set<String> known(ClientType type) {
        return KNOWN.get(type);
    }

    /** Every key any client, Kafka Streams or the serde knows, without prefixes. */
    public static Set<String> all() {
        return ALL;
    }

    /**
     * Whether {@code key} is a Kafka client, Kafka Streams or serde key, directly or behind a client
     * prefix ({@code producer.linger.ms}, {@code main.consumer.fetch.max.bytes}, {@code topic.segment.bytes}).
     */
    public static boolean isKnown(String key) {
        if (ALL.contains(key)) {
            return true;
        }
        for (String prefix : CLIENT_PREFIXES.keySet()) {
            if (key.startsWith(prefix) && ALL.contains(key.substring(prefix.length()))) {
                return true;
            }
        }
        for (String prefix : STREAMS_PREFIXES) {
            if (key.startsWith(prefix) && key.length() > prefix.length()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the value of {@code key} must never be shown: a PASSWORD in Kafka's ConfigDefs, or a name that says so. */
    public static boolean isSecret(String key) {
        String bare = key;
        for (String prefix : CLIENT_PREFIXES.keySet()) {
            if (key.startsWith(prefix)) {
                bare = key.substring(prefix.length());
            }
        }
        return SECRET_TYPED.contains(bare) || SECRET_NAME.matcher(key).matches();
    }

    /** {@code value} as it may be shown: {@code [hidden]} for a secret key, a URL's user info as {@code ***}. */
    public static String shown(String key, String value, boolean secret) {
        if (secret || isSecret(key)) {
            return value == null || value.isEmpty() ? "" : "[hidden]";
        }
        return value == null ? null : URL_USER_INFO.matcher(value).replaceAll("$1***@");
    }

    private static Map<ClientType, Set<String>> known() {
        Map<ClientType, Set<String>> m = new EnumMap<>(ClientType.class);
        m.put(ClientType.CONSUMER, Collections.unmodifiableSet(new TreeSet<>(ConsumerConfig.configNames())));
        m.put(ClientType.PRODUCER, Collections.unmodifiableSet(new TreeSet<>(ProducerConfig.configNames())));
        m.put(ClientType.ADMIN, Collections.unmodifiableSet(new TreeSet<>(AdminClientConfig.configNames())));
        Set<String> streams = new TreeSet<>(StreamsConfig.configDef().names());
        streams.addAll(ConsumerConfig.configNames());
        streams.addAll(ProducerConfig.configNames());
        streams.addAll(AdminClientConfig.configNames());
        m.put(ClientType.STREAMS, Collections.unmodifiableSet(streams));
        m.put(ClientType.SERDE, Collections.unmodifiableSet(new TreeSet<>(SERDE_KEYS)));
        return m;
    }

    private static Set<String> union() {
        Set<String> all = new TreeSet<>();
        KNOWN.values().forEach(all::addAll);
        return Collections.unmodifiableSet(all);
    }

    private static Set<String> secretTyped() {
        Set<String> s = new TreeSet<>();
        for (ConfigDef def : List.of(ConsumerConfig.configDef(), ProducerConfig.configDef(),
                AdminClientConfig.configDef(), StreamsConfig.configDef())) {
            def.configKeys().forEach((name, key) -> {
                if (key.type == ConfigDef.Type.PASSWORD) {
                    s.add(name);
                }
            });
        }
        return Collections.unmodifiableSet(s);
    }

    private static Map<String, ClientType> prefixes() {
        Map<String, ClientType> m = new LinkedHashMap<>();
        m.put(StreamsConfig.CONSUMER_PREFIX, ClientType.CONSUMER);
        m.put(StreamsConfig.PRODUCER_PREFIX, ClientType.PRODUCER);
        m.put(StreamsConfig.ADMIN_CLIENT_PREFIX, ClientType.ADMIN);
        return Collections.unmodifiableMap(m);
    }
}
