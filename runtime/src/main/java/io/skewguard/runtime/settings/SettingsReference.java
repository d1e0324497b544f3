package io.skewguard.runtime.settings;

import java.util.List;

/**
 * The configuration reference ({@code docs/configuration.md}) written from the settings models,
 * so that it cannot say anything the apps do not do. A test regenerates it and fails when the
 * committed file differs.
 */
public final class SettingsReference {

    private SettingsReference() {
    }

    /** The whole reference for {@code models}, in Markdown. */
    public static String markdown(List<SettingsModel> models) {
        StringBuilder b = new StringBuilder();
        b.append("# Configuration reference\n\n");
        b.append("<!-- Generated from the apps' settings models; do not edit by hand. Regenerate with:\n");
        b.append("     mvn -B -q -pl cli -am test -Dtest=ConfigurationReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -Dskewguard.docs.write=true -->\n\n");
        b.append("Every long-running SkewGuard process reads its settings the same way, later layers winning:\n\n");
        b.append("1. the defaults below;\n");
        b.append("2. `--config FILE`, a Java properties file (`key=value` per line);\n");
        b.append("3. environment variables `SKEWGUARD_<APP>_<KEY>`: the key upper-cased with `.` and `-` as `_` ");
        b.append("(`heat-threshold` of the detector is `SKEWGUARD_DETECTOR_HEAT_THRESHOLD`, `sasl.jaas.config` is ");
        b.append("`SKEWGUARD_DETECTOR_SASL_JAAS_CONFIG`);\n");
        b.append("4. flags: `--<key>` with `.` as `-` (`--bootstrap-servers`, `--heat-threshold`), and `--set KEY=VALUE` for any key.\n\n");
        b.append("Besides its own settings, every app takes **any Kafka client, Kafka Streams or schema-registry key by its Kafka name** ");
        b.append("(`security.protocol`, `sasl.mechanism`, `sasl.jaas.config`, `ssl.truststore.location`, `client.id`, ");
        b.append("`basic.auth.user.info`, `schema.registry.ssl.truststore.location`, …) and hands each client only the keys it knows; ");
        b.append("`consumer.`, `producer.` and `admin.` in front of a key address one kind of client. ");
        b.append("Keys an app fixes for its guarantees cannot be given another value (listed per app), and a Kafka key that one of ");
        b.append("the app's settings stands for must be set through that setting. An unknown key or environment variable is an error.\n\n");
        b.append("**Durations** everywhere (settings, flags, scenario files): ").append(Durations.ALLOWED).append(". ");
        b.append("A bare number other than `0` is refused.\n\n");
        b.append("**Secrets** (passwords, JAAS configurations, registry user info, user info in URLs) are shown as `[hidden]` ");
        b.append("in every log line and by `--print-config`, which prints each effective value and where it came from.\n\n");
        b.append("**A bad setting** ends the command before it starts anything, with one line naming the key, the value, ");
        b.append("where it came from and what is allowed, and exit code ").append(SettingsOptions.BAD_SETTINGS).append(".\n\n");
        for (SettingsModel m : models) {
            b.append("## ").append(m.app()).append("\n\n");
            if (!m.description().isEmpty()) {
                b.append(m.description().replace("<", "&lt;")).append("\n\n");
            }
            b.append("| key | flag | environment | type | default | what it does |\n");
            b.append("|---|---|---|---|---|---|\n");
            for (Setting s : m.settings()) {
                String def = s.required() ? "*required*" : s.defaultValue().isEmpty() ? "(empty)"
                        : "`" + KafkaKeys.shown(s.name(), s.defaultValue(), s.secret()) + "`";
                String doc = s.doc();
                if (!s.validator().allowed().isEmpty()) {
                    doc += " Must be " + s.validator().allowed() + ".";
                }
                if (s.kafkaKey() != null && !s.kafkaKey().equals(s.name())) {
                    doc += " Sets Kafka's `" + s.kafkaKey() + "`.";
                }
                b.append("| `").append(s.name()).append("` | `").append(s.flag()).append("` | `")
                        .append(m.envVariable(s.name())).append("` | ").append(s.type().name().toLowerCase(java.util.Locale.ROOT))
                        .append(" | ").append(def).append(" | ").append(doc.replace("|", "\\|").replace("<", "&lt;")).append(" |\n");
            }
            if (!m.fixed().isEmpty()) {
                b.append("\nFixed by the ").append(m.app()).append(" (another value is an error):\n\n");
                m.fixed().values().forEach(f -> b.append("- `").append(f.key()).append('=').append(f.value())
                        .append("`: ").append(f.reason()).append('\n'));
            }
            b.append('\n');
        }
        return b.toString();
    }
}
