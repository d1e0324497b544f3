package io.skewguard.runtime.settings;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The command-line face of a {@link SettingsModel}: one flag per setting (its {@code --help} text
 * from the model), {@code --config FILE}, {@code --set KEY=VALUE} for any Kafka key, and
 * {@code --print-config}. An app's command names its model once:
 *
 * <pre>{@code
 * @Command(name = "balancer", modelTransformer = BalancerApp.Flags.class)
 * public final class BalancerApp implements Callable<Integer> {
 *     public static final class Flags extends SettingsOptions { public Flags() { super(BalancerSettings.MODEL); } }
 *     @Spec CommandSpec spec;
 *     public Integer call() { return SettingsOptions.run(spec, BalancerSettings.MODEL, System.getenv(), settings -> ...); }
 * }
 * }</pre>
 */
public class SettingsOptions implements CommandLine.IModelTransformer {

    public static final String CONFIG = "--config";
    public static final String SET = "--set";
    public static final String PRINT_CONFIG = "--print-config";
    /** Exit code of a setting that cannot be used. */
    public static final int BAD_SETTINGS = 2;

    private final SettingsModel model;

    protected SettingsOptions(SettingsModel model) {
        this.model = model;
    }

    @Override
    public CommandSpec transform(CommandSpec spec) {
        install(spec, model);
        return spec;
    }

    /** Adds the model's flags, {@code --config}, {@code --set} and {@code --print-config} to {@code spec}, and the footer that explains the layers. */
    public static void install(CommandSpec spec, SettingsModel model) {
        spec.addOption(OptionSpec.builder(CONFIG).paramLabel("FILE").type(Path.class)
                .description("Properties file: any setting below by its key (e.g. " + model.settings().get(0).name()
                        + "=...), and Kafka client / Kafka Streams / schema-registry keys by their Kafka names "
                        + "(security.protocol, sasl.jaas.config, ssl.truststore.location, basic.auth.user.info, ...).")
                .build());
        spec.addOption(OptionSpec.builder(SET).paramLabel("KEY=VALUE").type(List.class).auxiliaryTypes(String.class)
                .description("Any setting or Kafka key, as in the file; repeatable.").build());
        spec.addOption(OptionSpec.builder(PRINT_CONFIG).arity("0").type(boolean.class)
                .description("Print every effective value and where it came from (secrets hidden), then exit.").build());
        for (Setting s : model.settings()) {
            spec.addOption(OptionSpec.builder(s.flag()).paramLabel(s.type().paramLabel()).type(String.class)
                    .description(help(s)).build());
        }
        List<String> footer = new ArrayList<>(List.of(spec.usageMessage().footer()));
        footer.add("");
        footer.add("Settings are read in layers, later wins: defaults < " + CONFIG + " FILE < environment "
                + model.envPrefix() + "<KEY> (upper case, . and - as _, e.g. " + model.envVariable(model.settings().get(0).name())
                + ", " + model.envVariable("security.protocol") + ") < flags. Durations: " + Durations.ALLOWED
                + ". A bad setting ends the command with exit code " + BAD_SETTINGS + ".");
        spec.usageMessage().footer(footer.toArray(String[]::new));
    }

    /** A setting's {@code --help} text: its doc, its default, what is allowed. */
    public static String help(Setting s) {
        StringBuilder b = new StringBuilder(s.doc());
        if (s.required()) {
            b.append(" Required.");
        } else if (!s.defaultValue().isEmpty()) {
            b.append(" Default: ").append(KafkaKeys.shown(s.name(), s.defaultValue(), s.secret())).append('.');
        }
        if (!s.validator().allowed().isEmpty()) {
            b.append(" Must be ").append(s.validator().allowed()).append('.');
        }
        return b.toString().replace("%", "%%");
    }

    /**
     * Reads the settings given to the command that was just parsed.
     *
     * @throws SettingsException on a setting that cannot be used
     */
    public static Settings read(CommandSpec spec, SettingsModel model, Map<String, String> env) {
        ParseResult parsed = spec.commandLine().getParseResult();
        Path config = parsed == null ? null : parsed.matchedOptionValue(CONFIG, null);
        Map<String, String> file = config == null ? Map.of() : SettingsModel.readFile(config);
        Map<String, String> flags = new LinkedHashMap<>();
        if (parsed != null) {
            List<String> sets = parsed.matchedOptionValue(SET, List.of());
            for (String kv : sets) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new SettingsException(SET + " " + kv + ": expected KEY=VALUE");
                }
                flags.put(kv.substring(0, eq).trim(), kv.substring(eq + 1));
            }
            for (Setting s : model.settings()) {
                if (parsed.hasMatchedOption(s.flag())) {
                    flags.put(s.name(), parsed.matchedOptionValue(s.flag(), ""));
                }
            }
        }
        return model.resolve(file, config == null ? null : config.toString(), env, flags);
    }

    /**
     * The one way a command starts from its settings: reads them; on a bad setting prints one line
     * ({@code <app>: <what is wrong>}) and returns {@link #BAD_SETTINGS}; with {@code --print-config}
     * prints them and returns 0; otherwise returns what {@code body} returns.
     */
    public static int run(CommandSpec spec, SettingsModel model, Map<String, String> env, Function<Settings, Integer> body) {
        PrintWriter err = spec.commandLine().getErr();
        Settings settings;
        try {
            settings = read(spec, model, env);
        } catch (SettingsException e) {
            err.println(model.app() + ": " + e.getMessage());
            err.flush();
            return BAD_SETTINGS;
        }
        ParseResult parsed = spec.commandLine().getParseResult();
        if (parsed != null && parsed.hasMatchedOption(PRINT_CONFIG)) {
            PrintWriter out = spec.commandLine().getOut();
            out.print(settings.describe());
            out.flush();
            return 0;
        }
        try {
            return body.apply(settings);
        } catch (SettingsException e) {
            err.println(model.app() + ": " + e.getMessage());
            err.flush();
            return BAD_SETTINGS;
        }
    }
}
