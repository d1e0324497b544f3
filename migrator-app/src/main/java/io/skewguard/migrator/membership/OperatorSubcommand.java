package io.skewguard.migrator.membership;

import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every subcommand of the operators' commands ({@code node}, {@code ctl}) shares: the
 * {@code --cluster}, the settings of its command's model, one read of what the topics say of the
 * cluster ({@link ClusterReader}), the one-line errors and the exit codes (0 done, 2 refused or a bad
 * setting, 3 Kafka or the registry failed).
 *
 * @param <V> what the subcommand reads of the cluster before it acts
 */
public abstract class OperatorSubcommand<V> implements Callable<Integer> {

    /** Exit code of a refused change (same as a bad setting or flag): nothing was written. */
    public static final int REFUSED = SettingsOptions.BAD_SETTINGS;
    /** Exit code when Kafka or the registry cannot be reached or refuses a request. */
    public static final int KAFKA_FAILED = 3;

    @Spec
    protected CommandSpec spec;
    @Option(names = "--cluster", required = true, paramLabel = "CLUSTER", description = "The cluster id.")
    protected String cluster;

    /** The command's settings model. */
    protected abstract SettingsModel model();

    /** The environment the settings read ({@code SKEWGUARD_<COMMAND>_*}). */
    protected abstract Map<String, String> environment();

    /** How long reading and writing may take. */
    protected abstract Duration timeout(Settings settings);

    /** What the subcommand needs of the cluster, read with {@code reader}. */
    protected abstract V read(ClusterReader reader, Topics topics, Settings settings);

    /** Acts on what was read; returns the exit code. */
    protected abstract int run(Settings settings, V view, PrintWriter out, PrintWriter err);

    @Override
    public final Integer call() {
        return SettingsOptions.run(spec, model(), environment(), settings -> {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                Optional<String> bad = checkArguments();
                if (bad.isPresent()) {
                    return fail(err, bad.get(), REFUSED);
                }
                V view;
                try (ClusterReader reader = new ClusterReader(settings.clientProperties(ClientType.CONSUMER), settings.serdeConfig(),
                        timeout(settings))) {
                    view = read(reader, topics(settings), settings);
                    reader.skipped().forEach((topic, n) -> out.println("note: skipped " + n + " undecodable or malformed record"
                            + (n == 1 ? "" : "s") + " on " + topic));
                }
                return run(settings, view, out, err);
            } catch (IllegalArgumentException e) {
                return fail(err, e.getMessage(), REFUSED);
            } catch (IllegalStateException e) {
                return fail(err, e.getMessage(), KAFKA_FAILED);
            } catch (ConfigException e) {
                // a client or serde key Kafka itself refuses (a malformed address, a registry URL of no known scheme)
                return fail(err, e.getMessage(), REFUSED);
            } catch (KafkaException e) {
                return fail(err, "Kafka failed: " + e.getMessage(), KAFKA_FAILED);
            } finally {
                out.flush();
            }
        });
    }

    /** Why the arguments cannot be used, or empty; checked before Kafka is asked anything. */
    protected Optional<String> checkArguments() {
        return checkId("--cluster", "cluster", cluster).or(() -> cluster.contains("/")
                ? Optional.of("--cluster: a cluster id cannot hold '/', which ends the cluster part of the topics' keys")
                : Optional.empty());
    }

    protected static Topics topics(Settings settings) {
        return new Topics(settings.string(CommonSettings.TOPIC_PREFIX));
    }

    /** Prints {@code line} as the command's one-line error and returns {@code code}. */
    protected int fail(PrintWriter err, String line, int code) {
        err.println(model().app() + ": " + line);
        err.flush();
        return code;
    }

    /** Why {@code id} cannot be a {@code what} id, as a flag's error, or empty. */
    protected static Optional<String> checkId(String flag, String what, String id) {
        return StateLimits.checkId(what, id).map(reason -> flag + ": " + reason.replaceFirst("^invalid: ", ""));
    }
}
