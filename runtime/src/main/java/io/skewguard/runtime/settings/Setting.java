package io.skewguard.runtime.settings;

import java.util.Objects;
import java.util.function.Function;

/**
 * One setting of an app, declared once: its name (the key in a properties file, {@code --name} on
 * the command line, {@code SKEWGUARD_<APP>_<NAME>} in the environment), its type, its default, what
 * it does, and the rule its value must follow.
 *
 * <p>A setting named after a Kafka client or schema-registry key ({@code bootstrap.servers},
 * {@code schema.registry.url}, {@code application.id}) is that key: its value goes to every client
 * that knows the key. A SkewGuard setting can also stand for a Kafka key in another unit
 * ({@link #mapsTo}: {@code commit-interval=1s} sets {@code commit.interval.ms=1000}); giving that
 * Kafka key directly is then an error that names the setting to use.
 *
 * @param name the key, e.g. {@code window} or {@code bootstrap.servers}
 * @param type how the text is read
 * @param defaultValue the default as text; {@code null} if the setting must be given
 * @param doc one or two sentences for {@code --help} and the configuration reference
 * @param validator the rule a parsed value must follow
 * @param kafkaKey the Kafka key this setting sets, or null
 * @param toKafka the Kafka key's value for a parsed value of this setting
 */
public record Setting(
        String name, SettingType type, String defaultValue, String doc, Validator validator,
        String kafkaKey, Function<Object, Object> toKafka) {

    public Setting {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(validator, "validator");
        if (!name.matches("[a-z][a-z0-9]*([.-][a-z0-9]+)*")) {
            throw new IllegalArgumentException("setting name '" + name + "' must be lower-case words joined by - or .");
        }
        if (defaultValue != null) {
            Object parsed = type.parse(defaultValue);
            if (!validator.test().test(parsed)) {
                throw new IllegalArgumentException("default of " + name + " breaks its own rule: " + validator.allowed());
            }
        }
        if (kafkaKey == null && KafkaKeys.isKnown(name)) {
            kafkaKey = name;
        }
        if (toKafka == null) {
            toKafka = v -> type.format(v);
        }
    }

    public static Setting string(String name, String defaultValue, String doc) {
        return new Setting(name, SettingType.STRING, defaultValue, doc, Validator.ANY, null, null);
    }

    public static Setting password(String name, String doc) {
        return new Setting(name, SettingType.PASSWORD, "", doc, Validator.ANY, null, null);
    }

    public static Setting integer(String name, int defaultValue, String doc) {
        return new Setting(name, SettingType.INT, Integer.toString(defaultValue), doc, Validator.ANY, null, null);
    }

    public static Setting longInteger(String name, long defaultValue, String doc) {
        return new Setting(name, SettingType.LONG, Long.toString(defaultValue), doc, Validator.ANY, null, null);
    }

    public static Setting number(String name, double defaultValue, String doc) {
        return new Setting(name, SettingType.DOUBLE, Double.toString(defaultValue), doc, Validator.ANY, null, null);
    }

    public static Setting bool(String name, boolean defaultValue, String doc) {
        return new Setting(name, SettingType.BOOLEAN, Boolean.toString(defaultValue), doc, Validator.ANY, null, null);
    }

    public static Setting duration(String name, String defaultValue, String doc) {
        return new Setting(name, SettingType.DURATION, defaultValue, doc, Validator.ANY, null, null);
    }

    public static Setting list(String name, String defaultValue, String doc) {
        return new Setting(name, SettingType.LIST, defaultValue, doc, Validator.ANY, null, null);
    }

    /** This setting with a rule its value must follow. */
    public Setting validatedBy(Validator rule) {
        return new Setting(name, type, defaultValue, doc, rule, kafkaKey, toKafka);
    }

    /** This setting with another default (text). */
    public Setting withDefault(String text) {
        return new Setting(name, type, text, doc, validator, kafkaKey, toKafka);
    }

    /** This setting as the value of Kafka key {@code key}, converted by {@code convert}. */
    public Setting mapsTo(String key, Function<Object, Object> convert) {
        return new Setting(name, type, defaultValue, doc, validator, key, convert);
    }

    /** Whether the setting has no default and must be given. */
    public boolean required() {
        return defaultValue == null;
    }

    /** Whether its value is never shown. */
    public boolean secret() {
        return type == SettingType.PASSWORD || KafkaKeys.isSecret(name);
    }

    /** The flag: {@code --} and the name with dots as dashes ({@code bootstrap.servers} → {@code --bootstrap-servers}). */
    public String flag() {
        return "--" + name.replace('.', '-');
    }
}
