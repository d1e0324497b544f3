package io.skewguard.migrator.control;

import io.skewguard.migrator.membership.ByteSize;
import io.skewguard.migrator.membership.ClusterReader;
import io.skewguard.migrator.membership.KnownCluster;
import io.skewguard.migrator.membership.OperatorSubcommand;
import io.skewguard.migrator.membership.OperatorWriter;
import io.skewguard.migrator.membership.Verdict;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeSignature;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code skewguard ctl …  --cluster C}: the operator's control of the balancer and the migrator.
 * Reads what the topics say of the cluster (nodes, latest report, slot table, controls, the decision
 * log, the dry run's proposals), prints it, and for a change writes one record to the compacted
 * control topic (key {@code <cluster>/<control>}), which both apps follow. Settings as in every
 * command ({@link #MODEL}): flags, {@code --config FILE} (SASL/SSL client keys, the operator's key),
 * {@code SKEWGUARD_CTL_*}.
 */
@Command(name = "ctl", mixinStandardHelpOptions = true,
        description = {"Operator control of the balancer and the migrator: status, dry run, pause and resume, throttle, exclude and "
                + "include a node, the dry run's plan, and why they did or did not act.",
                "Each change is one record on the compacted control topic (key <cluster>/<control>); the balancer and the migrator "
                        + "follow it at once. With operator-key set, the record is signed; apps with an operator-keys-file take only "
                        + "signed records of the operators it names."},
        subcommands = {CtlCommand.Status.class, CtlCommand.Plan.class, CtlCommand.Explain.class, CtlCommand.DryRun.class,
                CtlCommand.Pause.class, CtlCommand.Resume.class, CtlCommand.Throttle.class, CtlCommand.Exclude.class,
                CtlCommand.Include.class})
public final class CtlCommand {

    /** Exit code of a refused change (same as a bad setting or flag): nothing was written. */
    public static final int REFUSED = OperatorSubcommand.REFUSED;
    /** Exit code when Kafka or the registry cannot be reached or refuses a request. */
    public static final int KAFKA_FAILED = OperatorSubcommand.KAFKA_FAILED;

    public static final String TIMEOUT = "timeout";
    public static final String OPERATOR = "operator";
    public static final String OPERATOR_KEY = "operator-key";

    /** The settings of {@code skewguard ctl}. */
    public static final SettingsModel MODEL = SettingsModel.builder("ctl")
            .description("Operator control of the balancer and the migrator (records on the control topic), and what they decided.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.topicPrefix(),
                    Setting.duration(TIMEOUT, "30s", "How long reading the topics may take, and how long writing the record may wait for "
                                    + "its acknowledgement; past it the command ends with exit code 3.")
                            .validatedBy(Validator.positive()),
                    Setting.string(OPERATOR, "", "Your name as the records carry it (and as the apps' operator-keys-file names you); "
                            + "empty: the login name of the user running the command."),
                    Setting.password(OPERATOR_KEY, "Your operator key (base64, 32 bytes or more): ctl signs each record with it. Keep "
                            + "it in the --config file, readable by you only."))
            .fixes("isolation.level", "read_committed",
                    "the apps write the slot table and the decision log in exactly-once transactions; aborted records must not be read")
            .fixes("enable.idempotence", "true", "a retried control record must not be written twice")
            .fixes("acks", "all", "a control record is written only once every in-sync replica has it")
            .build();

    /** How many decisions ctl reads (explain prints at most this many). */
    static final int DECISIONS_READ = 200;

    private final Map<String, String> environment;

    public CtlCommand() {
        this(System.getenv());
    }

    /** With {@code environment} instead of the process's (for tests and embedders). */
    public CtlCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The flags of {@link #MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(MODEL);
        }
    }

    /** A subcommand of {@code ctl}: reads the cluster's {@link ControlView}. */
    abstract static class Subcommand extends OperatorSubcommand<ControlView> {
        @ParentCommand
        CtlCommand parent;

        @Override
        protected SettingsModel model() {
            return MODEL;
        }

        @Override
        protected Map<String, String> environment() {
            return parent.environment;
        }

        @Override
        protected Duration timeout(Settings settings) {
            return settings.duration(TIMEOUT);
        }

        @Override
        protected ControlView read(ClusterReader reader, Topics topics, Settings settings) {
            KnownCluster known = reader.read(topics, cluster);
            var controls = reader.controls(topics, cluster);
            List<Decision> decisions = reader.latest(topics.decisions(), Decision.class, cluster, Decision::getCluster,
                    d -> d.getDecidedAt().toEpochMilli(), DECISIONS_READ);
            Map<String, Proposal> proposals = new HashMap<>();
            for (Proposal p : reader.latest(topics.proposals(), Proposal.class, cluster, Proposal::getCluster,
                    p -> p.getProposedAt().toEpochMilli(), 8)) {
                proposals.putIfAbsent(p.getApp(), p); // newest first
            }
            return new ControlView(known, new java.util.TreeMap<>(controls), decisions, proposals);
        }
    }

    /** A subcommand that writes one control record. */
    abstract static class Change extends Subcommand {
        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, in your words; kept in the record next to your name.")
        String note;

        abstract ControlChange change();

        @Override
        protected Optional<String> checkArguments() {
            return super.checkArguments().or(() -> {
                try {
                    change(); // a bad rate or node is refused before Kafka is asked anything
                    return Optional.empty();
                } catch (IllegalArgumentException e) {
                    return Optional.of(e.getMessage());
                }
            });
        }

        @Override
        protected int run(Settings settings, ControlView view, PrintWriter out, PrintWriter err) {
            NodeSignature signer = signer(settings);
            String operator = settings.string(OPERATOR).isBlank() ? System.getProperty("user.name", "unknown") : settings.string(OPERATOR);
            Optional<String> badOperator = StateLimits.checkId("operator", operator);
            if (badOperator.isPresent()) {
                return fail(err, OPERATOR + ": " + badOperator.get().replaceFirst("^invalid: ", ""), REFUSED);
            }
            Verdict<OperatorControl> v = ControlRules.decide(view, change(), operator, note, Instant.now());
            if (v instanceof Verdict.Refused<?> r) {
                return fail(err, r.line(), REFUSED);
            }
            v.lines().forEach(out::println);
            if (v instanceof Verdict.Write<OperatorControl> w) {
                out.flush();
                OperatorControl record = w.record();
                String key = ControlRecords.key(record.getCluster(), record.getControl(), record.getNode());
                String where = OperatorWriter.write(settings.clientProperties(ClientType.PRODUCER), settings.serdeConfig(),
                        topics(settings).control(), key, record, signer, settings.duration(TIMEOUT), "skewguard-ctl", "ctl status");
                out.println("written by " + operator + (signer == null ? " (unsigned)" : " (signed)") + " to " + where);
            }
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"The cluster's alerts, controls (dry run, paused, throttle, excluded nodes, who set them and why), the "
                    + "balancer's weights epoch, the migrator's routing epoch, budget and migrations by phase, and each app's latest "
                    + "decision.",
                    "Exit code: 0 printed, 2 a bad setting, 3 Kafka or the registry failed."})
    static final class Status extends Subcommand {
        @Override
        protected int run(Settings settings, ControlView view, PrintWriter out, PrintWriter err) {
            if (!view.isKnown()) {
                return fail(err, "cluster " + cluster + " is unknown: no report, slot table, membership record, control or decision "
                        + "names it (check --cluster and --topic-prefix)", REFUSED);
            }
            CtlText.status(view).forEach(out::println);
            return 0;
        }
    }

    @Command(name = "plan", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"The dry run's latest proposals as tables: the weight round the balancer would run (old and proposed weight "
                    + "per node, the expected heat Gini) and the migration plan the migrator would run (every move, bytes, the "
                    + "expected capacity CV, what its first batch would start).",
                    "Exit code: 0 printed, 2 a bad setting, 3 Kafka or the registry failed."})
    static final class Plan extends Subcommand {
        @Override
        protected int run(Settings settings, ControlView view, PrintWriter out, PrintWriter err) {
            CtlText.plan(view).forEach(out::println);
            return 0;
        }
    }

    @Command(name = "explain", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Why the balancer and the migrator did or did not act: their newest decisions, newest first, each with its "
                    + "reason code (BELOW_THRESHOLD, COOLDOWN, TOO_SOON, FLOOR_REACHED, PAUSED, DRY_RUN, EXCLUDED, BUDGET_AT_FLOOR, "
                    + "NO_IMPROVING_MOVE, TARGET_REACHED, ADJUSTED, BATCH_STARTED, CONTROL, CONTROL_REFUSED, …), its message and its "
                    + "figures.",
                    "Exit code: 0 printed, 2 a bad setting, 3 Kafka or the registry failed."})
    static final class Explain extends Subcommand {
        @Option(names = "--last", paramLabel = "N", defaultValue = "20", description = "How many decisions (default ${DEFAULT-VALUE}, "
                + "at most " + DECISIONS_READ + ").")
        int last;

        @Override
        protected Optional<String> checkArguments() {
            return super.checkArguments().or(() -> last < 1 || last > DECISIONS_READ
                    ? Optional.of("--last: from 1 to " + DECISIONS_READ + ", was " + last) : Optional.empty());
        }

        @Override
        protected int run(Settings settings, ControlView view, PrintWriter out, PrintWriter err) {
            CtlText.explain(view, last).forEach(out::println);
            return 0;
        }
    }

    @Command(name = "dry-run", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"on: the balancer and the migrator publish what they would do (weight rounds and migration plans with their "
                    + "expected effect and bytes to move: ctl plan) and send no command; migrations already running finish. off: "
                    + "they act again at their next report.",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting (one line; nothing written), 3 Kafka or the "
                            + "registry failed."})
    static final class DryRun extends Change {
        @Parameters(index = "0", paramLabel = "on|off", description = "on or off.")
        String mode;

        @Override
        ControlChange change() {
            return new ControlChange.DryRun(onOff(mode));
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"No new weight round and no new migration batch; running copies finish their current step and hold before "
                    + "their switch; a switch already started (PREPARE sent) finishes, so nothing is left half-switched. Resume with "
                    + "ctl resume.",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Pause extends Change {
        @Override
        ControlChange change() {
            return new ControlChange.Pause(true);
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Ends a pause: held switches start, weight rounds and migration plans go on where they stopped.",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Resume extends Change {
        @Override
        ControlChange change() {
            return new ControlChange.Pause(false);
        }
    }

    @Command(name = "throttle", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Fixes the cluster's migration budget (bytes per second, shared by the running copies, which get their new "
                    + "rate at once, without a restart), or gives it back to the write load (auto).",
                    "Refused (nothing written): a rate below the budget's floor (budget-floor × max-bytes-per-sec, as the migrator "
                            + "states it in its decisions).",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Throttle extends Change {
        @Parameters(index = "0", paramLabel = "BYTES_PER_SEC|auto", description = "A rate: 50MiB, 50MiB/s, 100MB/s or digits for bytes "
                + "per second; or auto.")
        String rate;

        @Override
        ControlChange change() {
            if (rate.equalsIgnoreCase("auto")) {
                return new ControlChange.Throttle(0);
            }
            String size = rate.endsWith("/s") ? rate.substring(0, rate.length() - 2) : rate;
            long bytes;
            try {
                bytes = ByteSize.parse(size);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("throttle: " + e.getMessage() + " (or auto)", e);
            }
            if (bytes < 1) {
                throw new IllegalArgumentException("throttle: a rate is at least 1 byte per second, was " + rate + " (or auto)");
            }
            return new ControlChange.Throttle(bytes);
        }
    }

    @Command(name = "exclude", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"NODE is never a migration source or target, and its weight factor stays as it is (a migration of it already "
                    + "running finishes). Undo with ctl include.",
                    "Refused (nothing written): a node the cluster does not know; a node being drained (cancel the drain first).",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Exclude extends Change {
        @Parameters(index = "0", paramLabel = "NODE", description = "The node id.")
        String node;

        @Override
        ControlChange change() {
            StateLimits.checkId("node", node).ifPresent(r -> {
                throw new IllegalArgumentException("NODE: " + r.replaceFirst("^invalid: ", ""));
            });
            return new ControlChange.Exclude(node, true);
        }
    }

    @Command(name = "include", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Ends the exclusion of NODE: it may be a migration source or target again and its weight factor may move.",
                    "Refused (nothing written): a node the cluster does not know.",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Include extends Change {
        @Parameters(index = "0", paramLabel = "NODE", description = "The node id.")
        String node;

        @Override
        ControlChange change() {
            StateLimits.checkId("node", node).ifPresent(r -> {
                throw new IllegalArgumentException("NODE: " + r.replaceFirst("^invalid: ", ""));
            });
            return new ControlChange.Exclude(node, false);
        }
    }

    private static NodeSignature signer(Settings settings) {
        String key = settings.string(OPERATOR_KEY);
        if (key == null || key.isBlank()) {
            return null;
        }
        try {
            return NodeSignature.fromBase64(key.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(OPERATOR_KEY + " (from " + settings.origin(OPERATOR_KEY) + "): " + e.getMessage());
        }
    }

    private static boolean onOff(String mode) {
        if (mode.equalsIgnoreCase("on")) {
            return true;
        }
        if (mode.equalsIgnoreCase("off")) {
            return false;
        }
        throw new IllegalArgumentException("dry-run: on or off, was '" + mode + "'");
    }
}
