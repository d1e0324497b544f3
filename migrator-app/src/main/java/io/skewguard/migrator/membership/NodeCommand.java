package io.skewguard.migrator.membership;

import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code skewguard node add|drain|remove|list --cluster C}: the operator's side of cluster membership.
 * Reads what the topics say of the cluster (membership, latest report, slot table), prints what will
 * happen, and writes one record to the compacted membership topic (source "operator"), which the
 * migrator carries out. Settings as in every app ({@link #MODEL}): flags, {@code --config FILE}
 * (SASL/SSL client keys), {@code SKEWGUARD_NODE_*}.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Adds, drains and removes storage nodes of a cluster, and lists them.",
                    "Each change is one record on the compacted membership topic (key <cluster>/<node>, source operator); the migrator carries it out through the slot table and migrations."},
        subcommands = {NodeCommand.ListNodes.class, NodeCommand.Add.class, NodeCommand.Drain.class, NodeCommand.Remove.class})
public final class NodeCommand {

    /** Exit code of a refused change (same as a bad setting or flag): nothing was written. */
    public static final int REFUSED = OperatorSubcommand.REFUSED;
    /** Exit code when Kafka or the registry cannot be reached or refuses a request. */
    public static final int KAFKA_FAILED = OperatorSubcommand.KAFKA_FAILED;

    public static final String TIMEOUT = "timeout";
    public static final String DRAIN_HEADROOM = "drain-headroom";

    /** The settings of {@code skewguard node}. */
    public static final SettingsModel MODEL = SettingsModel.builder("node")
            .description("Adds, drains and removes storage nodes of a cluster (records on the membership topic) and lists them.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.topicPrefix(),
                    Setting.duration(TIMEOUT, "30s", "How long reading the topics may take, and how long writing the record may wait for "
                                    + "its acknowledgement; past it the command ends with exit code 3.")
                            .validatedBy(Validator.positive()),
                    Setting.number(DRAIN_HEADROOM, 0.10, "Share of each other live node's total bytes a drain must leave free: a drain "
                                    + "is refused when the node's used bytes do not fit on the other live nodes below 1 - drain-headroom "
                                    + "of their capacity.")
                            .validatedBy(Validator.inRange(0, 1)))
            .fixes("isolation.level", "read_committed",
                    "the migrator writes the slot table in exactly-once transactions; aborted rows must not be read")
            .fixes("enable.idempotence", "true", "a retried membership record must not be written twice")
            .fixes("acks", "all", "a membership record is written only once every in-sync replica has it")
            .build();

    private final Map<String, String> environment;

    public NodeCommand() {
        this(System.getenv());
    }

    /** With {@code environment} instead of the process's (for tests and embedders). */
    public NodeCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The flags of {@link #MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(MODEL);
        }
    }

    /** A subcommand of {@code node}: reads what the topics say of the cluster ({@link KnownCluster}). */
    abstract static class Subcommand extends OperatorSubcommand<KnownCluster> {
        @ParentCommand
        NodeCommand parent;

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
        protected KnownCluster read(ClusterReader reader, Topics topics, Settings settings) {
            return reader.read(topics, cluster);
        }
    }

    /** A subcommand that writes one record about one node. */
    abstract static class Change extends Subcommand {
        @Parameters(index = "0", paramLabel = "NODE", description = "The node id.")
        String node;
        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, in your words; kept in the record's reason next to your user name.")
        String note;
        @Option(names = "--dry-run", description = "Print the current state and what would happen; write nothing.")
        boolean dryRun;

        @Override
        protected Optional<String> checkArguments() {
            return super.checkArguments().or(() -> checkId("NODE", "node", node)).or(() -> {
                try {
                    change(); // a bad size is refused before Kafka is asked anything
                    return Optional.empty();
                } catch (IllegalArgumentException e) {
                    return Optional.of(e.getMessage());
                }
            });
        }

        abstract NodeChange change();

        @Override
        protected int run(Settings settings, KnownCluster k, PrintWriter out, PrintWriter err) {
            Verdict<io.skewguard.schemas.NodeMembership> v = new MembershipRules(settings.number(DRAIN_HEADROOM))
                    .decide(k, change(), System.getProperty("user.name", "unknown"), note, Instant.now());
            if (v instanceof Verdict.Refused<?> r) {
                return fail(err, r.line(), REFUSED);
            }
            v.lines().forEach(out::println);
            if (v instanceof Verdict.Write<io.skewguard.schemas.NodeMembership> w) {
                if (dryRun) {
                    out.println("dry run: nothing written (without --dry-run: " + w.record().getState() + " for "
                            + w.record().getCluster() + "/" + w.record().getNode() + ")");
                    return 0;
                }
                out.flush();
                String where = OperatorWriter.write(settings.clientProperties(ClientType.PRODUCER), settings.serdeConfig(),
                        topics(settings).membership(), w.record().getCluster() + "/" + w.record().getNode(), w.record(), null,
                        settings.duration(TIMEOUT), "skewguard-node", "node list");
                out.println("written: " + w.record().getNode() + " " + w.record().getState() + " (reason \"" + w.record().getReason()
                        + "\") to " + where);
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Lists the cluster's nodes: rack, membership state, who set it, when and why (membership topic); used and total bytes and utilisation (the cluster's latest report); how many candidate sets hold each node and in how many it is read-only (slot table). A node known only from the report or the slot table is a member without a record (state 'member'); the migrator takes it as ACTIVE.",
                    "Exit code: 0 listed, 2 a bad setting, 3 Kafka or the registry failed."})
    static final class ListNodes extends Subcommand {
        @Override
        protected int run(Settings settings, KnownCluster k, PrintWriter out, PrintWriter err) {
            NodeTable.lines(k).forEach(out::println);
            return 0;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Adds NODE to the cluster: records it ACTIVE, with its rack and capacity if given.",
                    "Next, the migrator takes it as a migration target once it reports capacity: if no repair runs it starts one and moves cold shards to it at the normal rate limits until the capacity CV is under target-cv.",
                    "Also takes back a DRAINED, REMOVED or LOST node. (With auto-join, the default, the migrator also takes a node that reports capacity without a record; add records its rack and capacity, and is needed with auto-join=false.) Nothing is written for a node that is already ACTIVE (exit code 0; add does not change a member's rack or capacity). Refused: a DRAINING node (cancel the drain with 'node drain NODE --cancel'), a bad size.",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting (one line; nothing written), 3 Kafka or the registry failed."})
    static final class Add extends Change {
        @Option(names = "--rack", paramLabel = "RACK", description = "The node's rack (failure domain); candidates of a set are on distinct racks.")
        String rack;
        @Option(names = "--capacity", paramLabel = "SIZE", description = "The node's total bytes: 100TB, 512GiB, or digits for bytes. "
                + "Its capacity reports take over once they arrive.")
        String capacity;

        @Override
        protected Optional<String> checkArguments() {
            return super.checkArguments().or(() -> rack == null ? Optional.empty() : checkId("--rack", "rack", rack));
        }

        @Override
        NodeChange change() {
            Long bytes = null;
            if (capacity != null) {
                try {
                    bytes = ByteSize.parse(capacity);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--capacity: " + e.getMessage(), e);
                }
            }
            return new NodeChange.Add(node, rack, bytes);
        }
    }

    @Command(name = "drain", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Drains NODE: records it DRAINING. Prints first what it holds, the free space left on the other live nodes and the cluster's utilisation once the drain is done.",
                    "Next, the migrator marks the node read-only in every candidate set that holds it (it keeps serving reads, takes no new writes), moves its shards away at the normal rate limits, then takes it out of every candidate set and records it DRAINED. --cancel records a DRAINING node ACTIVE again: the migrator clears the read-only marks; shards already moved stay where they are.",
                    "Refused (one line, nothing written): a node the cluster does not know; a node that is not ACTIVE; the last live node of a rack when the other live nodes would span fewer racks than the candidate-set size; a node whose used bytes do not fit on the other live nodes below 1 - drain-headroom of their capacity (10%% by default). Nothing is written for a node already DRAINING (exit code 0).",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Drain extends Change {
        @Option(names = "--cancel", description = "Cancel the drain of a DRAINING node: it becomes ACTIVE again.")
        boolean cancel;

        @Override
        NodeChange change() {
            return cancel ? new NodeChange.CancelDrain(node) : new NodeChange.Drain(node);
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, modelTransformer = Flags.class,
            description = {"Removes NODE at once (it is gone, or must go now): records it REMOVED.",
                    "Next, in one slot-table update the migrator replaces it in every candidate set that holds it by the next live node clockwise on the ring whose rack the set does not use yet, records it REMOVED with the slots and bytes the storage layer must rebuild from replicas, and a repair rebalances as usual. To move its shards away first while it still serves, use 'node drain' instead.",
                    "Refused (one line, nothing written): a node the cluster does not know; the last live node of a rack when the other live nodes would span fewer racks than the candidate-set size. Nothing is written for a node already REMOVED or LOST (exit code 0).",
                    "Exit code: 0 written or nothing to do, 2 refused or a bad setting, 3 Kafka or the registry failed."})
    static final class Remove extends Change {
        @Override
        NodeChange change() {
            return new NodeChange.Remove(node);
        }
    }
}
