package io.skewguard.runtime.acls;

import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.topics.TopicsCommand;
import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard acls}: prints the broker ACLs of {@link AclPlan} as a table and, with
 * {@code --apply}, creates them through the admin client. Applying is idempotent: lines already on
 * the cluster are counted, not created again; nothing is ever removed. Settings as in every app
 * ({@link #MODEL}): flags, a properties file ({@code --config}, where the administrator's SASL/SSL
 * keys go), {@code SKEWGUARD_ACLS_*}.
 */
@Command(name = "acls", mixinStandardHelpOptions = true, modelTransformer = AclsCommand.Flags.class,
        description = {"Prints the broker ACLs SkewGuard needs, one principal per role (detector, balancer, migrator,",
                "one per agent node), each line with its reason; --apply creates the missing ones (needs an",
                "administrator's credentials in --config: ALTER on the cluster). Nothing is ever removed.",
                "Exit code: 0 printed (and applied), 2 a bad setting, 3 Kafka refused or failed."})
public final class AclsCommand implements Callable<Integer> {

    public static final String PRINCIPAL_DETECTOR = "principal-detector";
    public static final String PRINCIPAL_BALANCER = "principal-balancer";
    public static final String PRINCIPAL_MIGRATOR = "principal-migrator";
    public static final String PRINCIPAL_AGENTS = "principal-agents";
    public static final String PRINCIPAL_OPERATORS = "principal-operators";
    public static final String DETECTOR_APPLICATION_ID = "detector-application-id";
    public static final String BALANCER_APPLICATION_ID = "balancer-application-id";
    public static final String MIGRATOR_APPLICATION_ID = "migrator-application-id";
    public static final String TIMEOUT = "timeout";

    /** Exit code when the Kafka cluster cannot be reached or refuses a request (as {@code topics}). */
    public static final int KAFKA_FAILED = TopicsCommand.KAFKA_FAILED;

    private static final Validator PRINCIPAL = Validator.of("TYPE:NAME, e.g. User:skewguard-detector",
            v -> v.toString().matches("[A-Za-z][A-Za-z0-9]*:\\S.*"));

    /** The settings of {@code skewguard acls}. */
    public static final SettingsModel MODEL = SettingsModel.builder("acls")
            .description("Prints (and applies) the broker ACLs of every SkewGuard role.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.topicPrefix(),
                    Setting.string(PRINCIPAL_DETECTOR, null, "Kafka principal of the detector, e.g. User:skewguard-detector.")
                            .validatedBy(PRINCIPAL),
                    Setting.string(PRINCIPAL_BALANCER, null, "Kafka principal of the balancer.").validatedBy(PRINCIPAL),
                    Setting.string(PRINCIPAL_MIGRATOR, null, "Kafka principal of the migrator.").validatedBy(PRINCIPAL),
                    Setting.list(PRINCIPAL_AGENTS, "",
                                    "Each agent node's principal: NODE=TYPE:NAME, comma-separated (n1=User:node-n1,n2=User:node-n2). "
                                            + "Nodes of one agent process may share a principal.")
                            .validatedBy(Validator.of("NODE=TYPE:NAME entries", v -> ((List<?>) v).stream()
                                    .allMatch(e -> e.toString().matches("[A-Za-z0-9._-]+=[A-Za-z][A-Za-z0-9]*:\\S.*")))),
                    Setting.list(PRINCIPAL_OPERATORS, "",
                                    "Principals of the operators who run 'skewguard node' and 'skewguard ctl' (TYPE:NAME, comma-separated): "
                                            + "they alone write the membership and control topics besides the apps. Empty: no operator lines.")
                            .validatedBy(Validator.of("TYPE:NAME entries", v -> ((List<?>) v).stream()
                                    .allMatch(e -> e.toString().matches("[A-Za-z][A-Za-z0-9]*:\\S.*")))),
                    Setting.string(DETECTOR_APPLICATION_ID, AclPlan.DETECTOR_APPLICATION_ID,
                            "The detector's application.id: its group, internal-topic and transactional-id prefix.")
                            .validatedBy(Validator.notBlank()),
                    Setting.string(BALANCER_APPLICATION_ID, AclPlan.BALANCER_APPLICATION_ID, "The balancer's application.id.")
                            .validatedBy(Validator.notBlank()),
                    Setting.string(MIGRATOR_APPLICATION_ID, AclPlan.MIGRATOR_APPLICATION_ID, "The migrator's application.id.")
                            .validatedBy(Validator.notBlank()),
                    Setting.duration(TIMEOUT, "30s", "How long to wait for each answer of the Kafka cluster (with --apply).")
                            .validatedBy(Validator.positive()))
            .build();

    /** The flags of {@link #MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(MODEL);
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--apply", description = "Create the ACLs on the cluster (those already there are left as they are).")
    boolean apply;

    private final Map<String, String> environment;

    public AclsCommand() {
        this(System.getenv());
    }

    /** With {@code environment} instead of the process's (for tests and embedders). */
    public AclsCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The plan of resolved settings of {@link #MODEL}. */
    public static AclPlan plan(Settings s) {
        Map<String, String> agents = new LinkedHashMap<>();
        for (String entry : s.list(PRINCIPAL_AGENTS)) {
            int eq = entry.indexOf('=');
            String node = entry.substring(0, eq).trim();
            if (agents.put(node, entry.substring(eq + 1).trim()) != null) {
                throw new SettingsException(PRINCIPAL_AGENTS + ": node " + node + " is named twice");
            }
        }
        try {
            return new AclPlan(new Topics(s.string(CommonSettings.TOPIC_PREFIX)),
                    new AclPlan.StreamsRole(s.string(PRINCIPAL_DETECTOR), s.string(DETECTOR_APPLICATION_ID)),
                    new AclPlan.StreamsRole(s.string(PRINCIPAL_BALANCER), s.string(BALANCER_APPLICATION_ID)),
                    new AclPlan.StreamsRole(s.string(PRINCIPAL_MIGRATOR), s.string(MIGRATOR_APPLICATION_ID)),
                    agents, s.list(PRINCIPAL_OPERATORS));
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, MODEL, environment, settings -> {
            AclPlan plan = plan(settings);
            PrintWriter out = spec.commandLine().getOut();
            out.print(plan.table());
            out.flush();
            if (!apply) {
                return 0;
            }
            try {
                Applied applied = apply(plan, settings.clientProperties(ClientType.ADMIN), settings.duration(TIMEOUT).toMillis());
                out.println(applied.created() + " ACLs created, " + applied.alreadyThere() + " already there");
                out.flush();
                return 0;
            } catch (IllegalStateException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.println(MODEL.app() + ": " + e.getMessage());
                err.flush();
                return KAFKA_FAILED;
            }
        });
    }

    /** What {@link #apply} did: bindings created, bindings that were there already. */
    public record Applied(int created, int alreadyThere) {}

    /**
     * Creates the plan's bindings that are not on the cluster yet.
     *
     * @throws IllegalStateException one line saying what failed (e.g. the admin's principal may not
     *                               create ACLs), never a stack trace's worth
     */
    public static Applied apply(AclPlan plan, Properties adminProperties, long timeoutMs) {
        String servers = adminProperties.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "");
        List<AclBinding> wanted = plan.grants().stream().map(AclGrant::binding).distinct().toList();
        Properties config = new Properties();
        config.putAll(adminProperties);
        config.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        try (Admin admin = Admin.create(config)) {
            List<AclBinding> existing = List.copyOf(await(admin.describeAcls(AclBindingFilter.ANY).values(), timeoutMs,
                    "list the ACLs", servers));
            List<AclBinding> missing = wanted.stream().filter(b -> !existing.contains(b)).toList();
            if (!missing.isEmpty()) {
                await(admin.createAcls(missing).all(), timeoutMs, "create " + missing.size() + " ACLs", servers);
                awaitVisible(admin, missing, timeoutMs, servers);
            }
            return new Applied(missing.size(), wanted.size() - missing.size());
        }
    }

    /**
     * Waits until a broker lists every created binding: the controller has committed them when
     * {@code createAcls} returns, but a broker's authorizer takes them from its metadata a moment
     * later, and an app started right after {@code --apply} would be refused in between.
     */
    private static void awaitVisible(Admin admin, List<AclBinding> created, long timeoutMs, String servers) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            List<AclBinding> listed = List.copyOf(await(admin.describeAcls(AclBindingFilter.ANY).values(), timeoutMs,
                    "list the ACLs", servers));
            long absent = created.stream().filter(b -> !listed.contains(b)).count();
            if (absent == 0) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("created " + created.size() + " ACLs on " + servers + ", but after " + timeoutMs
                        + " ms the broker still does not list " + absent + " of them");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the broker to list the ACLs on " + servers, e);
            }
        }
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, long timeoutMs, String what, String servers) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String hint = cause instanceof org.apache.kafka.common.errors.AuthorizationException
                    ? " (the principal in --config may not manage ACLs: use an administrator's, with ALTER and DESCRIBE on the cluster)"
                    : cause instanceof org.apache.kafka.common.errors.AuthenticationException
                    ? " (check security.protocol, sasl.mechanism and sasl.jaas.config in --config)" : "";
            throw new IllegalStateException("cannot " + what + " on " + servers + ": " + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + hint, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + " on " + servers + ": no answer within " + timeoutMs + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what + " on " + servers, e);
        }
    }
}
