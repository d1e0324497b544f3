package io.skewguard.runtime.topics;

import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.SettingsOptions;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard topics create|check}: provisions and checks every SkewGuard topic as
 * {@link TopicPlan} describes it. Settings as in every app ({@link TopicPlan#MODEL}): flags, a
 * properties file ({@code --config}, where SASL/SSL client keys go), {@code SKEWGUARD_TOPICS_*}.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = {"Creates and checks SkewGuard's topics: partition counts, cleanup policy, retention, replication factor.",
                "Existing topics are never changed; differences are reported."},
        subcommands = {TopicsCommand.Create.class, TopicsCommand.Check.class})
public final class TopicsCommand {

    /** Exit code of {@code check} (and {@code create}) when a topic differs from the plan. */
    public static final int DIFFERS = 1;
    /** Exit code when the Kafka cluster cannot be reached or refuses a request. */
    public static final int KAFKA_FAILED = 3;

    private final Map<String, String> environment;

    public TopicsCommand() {
        this(System.getenv());
    }

    /** With {@code environment} instead of the process's (for tests and embedders). */
    public TopicsCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The flags of {@link TopicPlan#MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(TopicPlan.MODEL);
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Creates the missing SkewGuard topics; topics already there are left as they are.",
                    "Prints what it created, what was already there and how that differs from the plan.",
                    "Exit code: 0 all topics match, 1 a topic that was already there differs, 2 a bad setting, 3 Kafka failed."})
    static final class Create implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @ParentCommand
        TopicsCommand parent;

        @Override
        public Integer call() {
            return parent.run(spec, (provisioner, plan) -> {
                PrintWriter out = spec.commandLine().getOut();
                Provisioned p = provisioner.create(plan);
                for (TopicSpec t : p.created()) {
                    out.println("created " + t.name() + ": " + t.summary());
                }
                for (String name : p.alreadyThere()) {
                    out.println("already there: " + name);
                }
                printDifferences(out, p.differences());
                if (p.matches()) {
                    out.println(p.created().size() + " created, " + p.alreadyThere().size() + " already there; every topic matches the plan");
                }
                return p.matches() ? 0 : DIFFERS;
            });
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Compares the SkewGuard topics on the cluster with the plan and prints every difference.",
                    "Exit code: 0 every topic matches, 1 something differs, 2 a bad setting, 3 Kafka failed."})
    static final class Check implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @ParentCommand
        TopicsCommand parent;

        @Override
        public Integer call() {
            return parent.run(spec, (provisioner, plan) -> {
                PrintWriter out = spec.commandLine().getOut();
                List<TopicDifference> differences = provisioner.check(plan);
                if (differences.isEmpty()) {
                    out.println("all " + plan.names().all().size() + " topics match the plan");
                    return 0;
                }
                printDifferences(out, differences);
                return DIFFERS;
            });
        }
    }

    private int run(CommandSpec spec, BiFunction<TopicProvisioner, TopicPlan, Integer> body) {
        return SettingsOptions.run(spec, TopicPlan.MODEL, environment, settings -> {
            TopicPlan plan = TopicPlan.from(settings);
            try (TopicProvisioner provisioner = TopicProvisioner.connect(settings.clientProperties(ClientType.ADMIN),
                    settings.duration(TopicPlan.TIMEOUT))) {
                int code = body.apply(provisioner, plan);
                spec.commandLine().getOut().flush();
                return code;
            } catch (IllegalStateException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.println(TopicPlan.MODEL.app() + ": " + e.getMessage());
                err.flush();
                return KAFKA_FAILED;
            }
        });
    }

    private static void printDifferences(PrintWriter out, List<TopicDifference> differences) {
        if (differences.isEmpty()) {
            return;
        }
        for (TopicDifference d : differences) {
            out.println("differs: " + d.line());
        }
        out.println(differences.size() + (differences.size() == 1 ? " difference" : " differences")
                + "; SkewGuard does not change existing topics: create the missing ones with 'topics create', change the others"
                + " with Kafka's tools (kafka-topics.sh, kafka-configs.sh) or delete and recreate them");
    }
}
