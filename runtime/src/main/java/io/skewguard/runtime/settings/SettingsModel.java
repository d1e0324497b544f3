package io.skewguard.runtime.settings;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Every setting of one app, declared once, and how they are read: defaults &lt; properties file &lt;
 * environment {@code SKEWGUARD_<APP>_<KEY>} &lt; flags. The same model gives {@code --help}, the
 * configuration reference, {@code --print-config} and the typed {@link Settings} the app runs with.
 *
 * <p>Besides its own settings, an app accepts every Kafka client, Kafka Streams and schema-registry
 * key by Kafka's own name ({@code security.protocol}, {@code sasl.jaas.config}, {@code ssl.*},
 * {@code consumer.max.poll.records}, {@code basic.auth.user.info} …) and hands each client only the
 * keys it knows ({@link Settings#clientProperties}). Keys the app fixes for its guarantees
 * ({@link Builder#fixes}: the processing guarantee, the isolation level, idempotence) cannot be
 * given another value: that is an error that says why. A key that one of the app's settings stands
 * for ({@link Setting#mapsTo}) is an error that names the setting.
 *
 * <p>In the environment a key is upper-cased with {@code .} and {@code -} as {@code _}:
 * {@code window} → {@code SKEWGUARD_DETECTOR_WINDOW}, {@code sasl.jaas.config} →
 * {@code SKEWGUARD_DETECTOR_SASL_JAAS_CONFIG}. A variable with the app's prefix that names no key
 * is an error (a typo must not go unnoticed).
 */
public final class SettingsModel {

    /** A Kafka key the app sets itself, with the reason a different value would break it. */
    public record Fixed(String key, String value, String reason) {
    }

    private final String app;
    private final String description;
    private final Map<String, Setting> settings;
    private final Map<String, Fixed> fixed;
    private final Map<String, String> mappedKeys;
    private final Map<String, String> envNames;

    private SettingsModel(String app, String description, List<Setting> settings, List<Fixed> fixed) {
        this.app = app;
        this.description = description;
        Map<String, Setting> s = new LinkedHashMap<>();
        Map<String, String> mapped = new HashMap<>();
        for (Setting setting : settings) {
            if (s.put(setting.name(), setting) != null) {
                throw new IllegalArgumentException(app + " declares setting " + setting.name() + " twice");
            }
            if (setting.kafkaKey() != null && !setting.kafkaKey().equals(setting.name())) {
                mapped.put(setting.kafkaKey(), setting.name());
            }
        }
        this.settings = Collections.unmodifiableMap(s);
        Map<String, Fixed> f = new LinkedHashMap<>();
        fixed.forEach(x -> f.put(x.key(), x));
        this.fixed = Collections.unmodifiableMap(f);
        this.mappedKeys = Collections.unmodifiableMap(mapped);
        Map<String, String> env = new HashMap<>();
        for (String key : KafkaKeys.all()) {
            env.put(envSuffix(key), key);
            for (String prefix : KafkaKeys.CLIENT_PREFIXES.keySet()) {
                env.put(envSuffix(prefix + key), prefix + key);
            }
        }
        this.settings.keySet().forEach(name -> env.put(envSuffix(name), name)); // the app's own names win
        this.envNames = env;
    }

    public static Builder builder(String app) {
        return new Builder(app);
    }

    /** The app's name: {@code detector}, {@code balancer}, … */
    public String app() {
        return app;
    }

    /** One sentence on what the app does. */
    public String description() {
        return description;
    }

    /** The settings, in declaration order. */
    public List<Setting> settings() {
        return List.copyOf(settings.values());
    }

    /** The setting called {@code name}. */
    public Setting setting(String name) {
        Setting s = settings.get(name);
        if (s == null) {
            throw new IllegalArgumentException(app + " has no setting " + name);
        }
        return s;
    }

    public boolean has(String name) {
        return settings.containsKey(name);
    }

    /** The Kafka keys the app fixes, by key. */
    public Map<String, Fixed> fixed() {
        return fixed;
    }

    /** {@code SKEWGUARD_<APP>_} */
    public String envPrefix() {
        return "SKEWGUARD_" + app.toUpperCase(Locale.ROOT).replace('-', '_') + "_";
    }

    /** The environment variable of a key: {@code heat-threshold} → {@code SKEWGUARD_DETECTOR_HEAT_THRESHOLD}. */
    public String envVariable(String key) {
        return envPrefix() + envSuffix(key);
    }

    /** The defaults alone. */
    public Settings defaults() {
        return resolve(Map.of(), null, Map.of(), Map.of());
    }

    /** The defaults with {@code values} (keys as in a properties file) on top; for tests and embedders. */
    public Settings with(Map<String, String> values) {
        return resolve(Map.of(), null, Map.of(), values);
    }

    /**
     * Reads the layers, later wins: the defaults, the properties {@code file} (read from
     * {@code fileName}, which only names it in messages; may be null), the process environment (only
     * variables with {@link #envPrefix()} are read), the {@code flags} (key → value).
     *
     * @throws SettingsException naming the key, its value, where it came from and what is allowed
     */
    public Settings resolve(Map<String, String> file, String fileName, Map<String, String> env, Map<String, String> flags) {
        Map<String, String> text = new LinkedHashMap<>();
        Map<String, String> origin = new LinkedHashMap<>();
        settings.values().forEach(s -> {
            if (s.defaultValue() != null) {
                text.put(s.name(), s.defaultValue());
                origin.put(s.name(), "default");
            }
        });
        Map<String, String> client = new TreeMap<>();
        Map<String, String> clientOrigin = new TreeMap<>();
        String fileOrigin = "file " + (fileName == null ? "(properties)" : fileName);
        new TreeMap<>(file).forEach((k, v) -> put(k.trim(), v, fileOrigin, text, origin, client, clientOrigin));
        new TreeMap<>(env).forEach((var, v) -> {
            if (var.startsWith(envPrefix())) {
                String key = envNames.get(var.substring(envPrefix().length()));
                if (key == null) {
                    throw new SettingsException("environment variable " + var + " names no " + app + " setting and no Kafka or "
                            + "schema-registry key (" + app + " --help lists the settings; Kafka keys are written upper-case "
                            + "with _ for . as in " + envVariable("security.protocol") + ")");
                }
                put(key, v, "environment " + var, text, origin, client, clientOrigin);
            }
        });
        flags.forEach((k, v) -> {
            String where = has(k) ? "flag " + setting(k).flag() : "flag --set " + k;
            put(k, v, where, text, origin, client, clientOrigin);
        });
        Map<String, Object> values = new LinkedHashMap<>();
        for (Setting s : settings.values()) {
            String t = text.get(s.name());
            if (t == null) {
                throw new SettingsException(s.name() + " is required: " + s.doc() + " (flag " + s.flag() + ", environment "
                        + envVariable(s.name()) + ", or " + s.name() + "= in the properties file)");
            }
            Object v;
            try {
                v = s.type().parse(t);
            } catch (IllegalArgumentException e) {
                throw new SettingsException(s.name() + ": " + e.getMessage() + " (from " + origin.get(s.name()) + ")");
            }
            if (!s.validator().test().test(v)) {
                throw new SettingsException(s.name() + ": " + KafkaKeys.shown(s.name(), t, s.secret()) + " is not allowed; it must be "
                        + s.validator().allowed() + " (from " + origin.get(s.name()) + ")");
            }
            values.put(s.name(), v);
        }
        return new Settings(this, values, origin, client, clientOrigin);
    }

    /** Reads a properties file into a map; a missing or unreadable file is a {@link SettingsException}. */
    public static Map<String, String> readFile(Path path) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(path)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new SettingsException("config file " + path + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new SettingsException("cannot read config file " + path + ": " + e.getMessage());
        }
        Map<String, String> m = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        return m;
    }

    private void put(String key, String value, String where, Map<String, String> text, Map<String, String> origin,
            Map<String, String> client, Map<String, String> clientOrigin) {
        Objects.requireNonNull(value, key);
        String v = value.trim();
        if (settings.containsKey(key)) {
            text.put(key, v);
            origin.put(key, where);
            return;
        }
        if (mappedKeys.containsKey(key)) {
            Setting s = settings.get(mappedKeys.get(key));
            throw new SettingsException(key + " is set by the " + app + " from its setting " + s.name() + " (" + where
                    + "); set " + s.name() + " instead (" + s.type().allowed() + ")");
        }
        Fixed f = fixed.get(bare(key));
        if (f != null && !f.value().equalsIgnoreCase(v)) {
            throw new SettingsException(key + "=" + KafkaKeys.shown(key, v, false) + " (" + where + ") conflicts with the "
                    + app + ", which sets " + f.key() + "=" + f.value() + ": " + f.reason());
        }
        if (!KafkaKeys.isKnown(key)) {
            throw new SettingsException("unknown setting '" + key + "' (" + where + ")" + suggestion(key) + "; the " + app
                    + "'s settings are listed by '" + app + " --help', and Kafka client, Kafka Streams and schema-registry "
                    + "keys are accepted by their Kafka names");
        }
        client.put(key, v);
        clientOrigin.put(key, where);
    }

    private static String bare(String key) {
        for (String prefix : KafkaKeys.CLIENT_PREFIXES.keySet()) {
            if (key.startsWith(prefix)) {
                return key.substring(prefix.length());
            }
        }
        return key;
    }

    private String suggestion(String key) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        List<String> candidates = new ArrayList<>(settings.keySet());
        candidates.addAll(KafkaKeys.all());
        for (String c : candidates) {
            int d = distance(key, c);
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return best != null && bestDistance <= Math.max(2, key.length() / 4) ? "; did you mean '" + best + "'?" : "";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static String envSuffix(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** Declares a model. */
    public static final class Builder {
        private final String app;
        private String description = "";
        private final List<Setting> settings = new ArrayList<>();
        private final List<Fixed> fixed = new ArrayList<>();

        private Builder(String app) {
            this.app = Objects.requireNonNull(app, "app");
        }

        public Builder description(String text) {
            this.description = text;
            return this;
        }

        public Builder add(Setting... more) {
            settings.addAll(List.of(more));
            return this;
        }

        public Builder add(List<Setting> more) {
            settings.addAll(more);
            return this;
        }

        /** The app sets Kafka key {@code key} to {@code value} itself, because {@code reason}. */
        public Builder fixes(String key, String value, String reason) {
            fixed.add(new Fixed(key, value, reason));
            return this;
        }

        public SettingsModel build() {
            return new SettingsModel(app, description, settings, fixed);
        }
    }
}
