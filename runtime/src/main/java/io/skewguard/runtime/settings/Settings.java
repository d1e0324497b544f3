package io.skewguard.runtime.settings;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * An app's settings as read ({@link SettingsModel#resolve}): every setting's typed value and where
 * it came from, and the Kafka keys given, which each client gets filtered by what it knows. Its text
 * forms ({@link #toString()}, {@link #describe()}) never show a secret.
 */
public final class Settings {

    private final SettingsModel model;
    private final Map<String, Object> values;
    private final Map<String, String> origins;
    private final Map<String, String> client;
    private final Map<String, String> clientOrigins;

    Settings(SettingsModel model, Map<String, Object> values, Map<String, String> origins,
            Map<String, String> client, Map<String, String> clientOrigins) {
        this.model = model;
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.origins = Collections.unmodifiableMap(new LinkedHashMap<>(origins));
        this.client = Collections.unmodifiableMap(new TreeMap<>(client));
        this.clientOrigins = Collections.unmodifiableMap(new TreeMap<>(clientOrigins));
    }

    public SettingsModel model() {
        return model;
    }

    /** The typed value of setting {@code name}. */
    public Object get(String name) {
        model.setting(name);
        return values.get(name);
    }

    public String string(String name) {
        return (String) get(name);
    }

    public int integer(String name) {
        return (Integer) get(name);
    }

    public long longValue(String name) {
        return ((Number) get(name)).longValue();
    }

    public double number(String name) {
        return (Double) get(name);
    }

    public boolean bool(String name) {
        return (Boolean) get(name);
    }

    public Duration duration(String name) {
        return (Duration) get(name);
    }

    @SuppressWarnings("unchecked")
    public List<String> list(String name) {
        return (List<String>) get(name);
    }

    /** Where setting or key {@code name} came from: {@code default}, {@code file …}, {@code environment …}, {@code flag …}. */
    public String origin(String name) {
        String o = origins.get(name);
        return o != null ? o : clientOrigins.getOrDefault(name, "default");
    }

    /** The Kafka keys given (file, environment, {@code --set}), not the app's own settings. */
    public Map<String, String> kafkaKeys() {
        return client;
    }

    /** These settings with {@code overrides} (keys as in a properties file) on top; for tests and embedders. */
    public Settings with(Map<String, String> overrides) {
        Map<String, String> all = new LinkedHashMap<>();
        values.forEach((k, v) -> all.put(k, model.setting(k).type().format(v)));
        all.putAll(client);
        all.putAll(overrides);
        return model.resolve(Map.of(), null, Map.of(), all);
    }

    /**
     * The properties of a client of {@code type}: the app's settings that are Kafka keys (or stand
     * for one), the Kafka keys given that this kind of client knows ({@code consumer.}-,
     * {@code producer.}- and {@code admin.}-prefixed ones for that client alone, prefix removed;
     * Kafka Streams gets prefixed keys as they are), and the keys the app fixes. Empty values are
     * left out (they mean "Kafka's default").
     */
    public Properties clientProperties(ClientType type) {
        Set<String> known = KafkaKeys.known(type);
        Properties p = new Properties();
        for (Setting s : model.settings()) {
            Object v = values.get(s.name());
            if (s.kafkaKey() != null && known.contains(s.kafkaKey()) && !(v instanceof String str && str.isEmpty())) {
                p.put(s.kafkaKey(), String.valueOf(s.toKafka().apply(v)));
            }
        }
        client.forEach((k, v) -> {
            boolean passes = known.contains(k)
                    || (type == ClientType.STREAMS && !KafkaKeys.SERDE_KEYS.contains(k) && !KafkaKeys.all().contains(k));
            if (passes && !v.isEmpty()) {
                p.put(k, v);
            }
        });
        client.forEach((k, v) -> KafkaKeys.CLIENT_PREFIXES.forEach((prefix, t) -> {
            if (t == type && k.startsWith(prefix) && known.contains(k.substring(prefix.length())) && !v.isEmpty()) {
                p.put(k.substring(prefix.length()), v);
            }
        }));
        model.fixed().values().forEach(f -> {
            if (known.contains(f.key())) {
                p.put(f.key(), f.value());
            }
        });
        return p;
    }

    /** The configuration of SkewGuard's schema-registry serdes. */
    public Map<String, Object> serdeConfig() {
        Map<String, Object> m = new LinkedHashMap<>();
        clientProperties(ClientType.SERDE).forEach((k, v) -> m.put(k.toString(), v));
        return m;
    }

    /**
     * Every effective value and where it came from, one per line, secrets hidden: what
     * {@code --print-config} prints.
     */
    public String describe() {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(model.app()).append(" settings: key = value  (where it came from)\n");
        int longest = 0;
        for (String k : values.keySet()) {
            longest = Math.max(longest, k.length());
        }
        for (String k : client.keySet()) {
            longest = Math.max(longest, k.length());
        }
        int width = Math.max(longest, 1);
        for (Setting s : model.settings()) {
            String text = s.type().format(values.get(s.name()));
            b.append(String.format("%-" + width + "s = %s  (%s)%n", s.name(), KafkaKeys.shown(s.name(), text, s.secret()),
                    origin(s.name())));
        }
        client.forEach((k, v) -> b.append(String.format("%-" + width + "s = %s  (%s)%n", k, KafkaKeys.shown(k, v, false),
                clientOrigins.get(k))));
        model.fixed().values().forEach(f -> b.append(String.format("%-" + width + "s = %s  (fixed by the %s: %s)%n",
                f.key(), f.value(), model.app(), f.reason())));
        return b.toString();
    }

    /** One line, secrets hidden: for the start-up log. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(model.app()).append(" settings {");
        String sep = "";
        for (Setting s : model.settings()) {
            b.append(sep).append(s.name()).append('=')
                    .append(KafkaKeys.shown(s.name(), s.type().format(values.get(s.name())), s.secret()));
            sep = ", ";
        }
        for (var e : client.entrySet()) {
            b.append(sep).append(e.getKey()).append('=').append(KafkaKeys.shown(e.getKey(), e.getValue(), false));
        }
        return b.append('}').toString();
    }
}
