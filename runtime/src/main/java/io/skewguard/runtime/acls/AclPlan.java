package io.skewguard.runtime.acls;

import io.skewguard.schemas.Topics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Every broker ACL a SkewGuard deployment needs, one principal per role, each line with its reason
 * (docs/security.md, "Secured cluster"). Derived from the topic prefix, the three Kafka Streams apps'
 * principals and application ids, and each agent node's principal; what is not listed is denied
 * (the broker runs with {@code allow.everyone.if.no.acl.found=false}).
 *
 * <p>What it encodes:
 * <ul>
 *   <li>only the balancer writes {@code weight-commands} and {@code node-weights}; only the migrator
 *       writes {@code migration-commands}, {@code slot-table} and {@code membership}; nodes write
 *       their events ({@code node-writes}, {@code node-capacity}) and statuses
 *       ({@code migration-status}) and read their commands and the routing tables;</li>
 *   <li>every role may describe every SkewGuard topic and its configuration: each process checks at
 *       start that all topics exist as planned ({@code RequiredTopics}); and may write the
 *       dead-letter topic;</li>
 *   <li>a Kafka Streams app owns everything named after its {@code application.id}: its internal
 *       topics (created, read, written, purged with deleteRecords, their configs checked), its
 *       consumer group and the transactional ids of its exactly-once producers
 *       ({@code <application.id>-<process>-<thread>}); the detector's ingest loops use
 *       {@code <application.id>-ingest} as group and transactional-id prefix and
 *       {@code <application.id>-partials} as topic, all under the same prefix;</li>
 *   <li>an agent's consumer group is {@code skewguard-agent-<node>}, a literal name, so that node n1's
 *       principal cannot join n10's group;</li>
 *   <li>the balancer and the migrator read the operators' {@code control} topic and write their
 *       {@code proposals} and {@code decisions}; operators (the {@code node} and {@code ctl} commands)
 *       alone write {@code control}, and write {@code membership} next to the migrator.</li>
 * </ul>
 * No {@code IdempotentWrite} on the cluster: since Kafka 3.0 WRITE on a topic is enough for an
 * idempotent producer. No CREATE on SkewGuard's own topics: an administrator creates them
 * ({@code skewguard topics create}); apps started with {@code create-topics=true} would need it.
 *
 * @param topics         the SkewGuard topic names (their prefix)
 * @param detector       the detector's principal and application id
 * @param balancer       the balancer's principal and application id
 * @param migrator       the migrator's principal and application id
 * @param agents         node id to the principal of that node's agent (and reporter); sorted by node
 * @param operators      principals of the operators who run {@code node} and {@code ctl}; may be empty
 */
public record AclPlan(Topics topics, StreamsRole detector, StreamsRole balancer, StreamsRole migrator, Map<String, String> agents,
        List<String> operators) {

    public static final String DETECTOR_APPLICATION_ID = "skewguard-detector";
    public static final String BALANCER_APPLICATION_ID = "skewguard-balancer";
    public static final String MIGRATOR_APPLICATION_ID = "skewguard-migrator";
    /** An agent's consumer group is this and the node id (the agent's {@code AgentSettings.groupId()}). */
    public static final String AGENT_GROUP_PREFIX = "skewguard-agent-";

    private static final Pattern PRINCIPAL = Pattern.compile("[A-Za-z][A-Za-z0-9]*:\\S.*");
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9._-]+");

    /**
     * A Kafka Streams app's identity on the broker.
     *
     * @param principal     e.g. {@code User:skewguard-detector}
     * @param applicationId its {@code application.id}: consumer group, internal-topic and transactional-id prefix
     */
    public record StreamsRole(String principal, String applicationId) {
        public StreamsRole {
            requirePrincipal("principal", principal);
            if (applicationId == null || applicationId.isBlank() || !NODE.matcher(applicationId).matches()) {
                throw new IllegalArgumentException("application id must be letters, digits, '.', '_' or '-', was '" + applicationId + "'");
            }
        }
    }

    public AclPlan {
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(detector, "detector");
        Objects.requireNonNull(balancer, "balancer");
        Objects.requireNonNull(migrator, "migrator");
        Map<String, String> sorted = new TreeMap<>();
        agents.forEach((node, principal) -> {
            if (node == null || !NODE.matcher(node).matches()) {
                throw new IllegalArgumentException("agent node id must be letters, digits, '.', '_' or '-', was '" + node + "'");
            }
            requirePrincipal("principal of agent " + node, principal);
            sorted.put(node, principal);
        });
        agents = Collections.unmodifiableMap(sorted);
        operators = List.copyOf(operators);
        operators.forEach(o -> requirePrincipal("operator principal", o));
    }

    /** A plan without operator lines. */
    public AclPlan(Topics topics, StreamsRole detector, StreamsRole balancer, StreamsRole migrator, Map<String, String> agents) {
        this(topics, detector, balancer, migrator, agents, List.of());
    }

    /**
     * Every line, role by role (detector, balancer, migrator, then the agents by node id, then the operators), in a
     * stable order. A line may repeat a binding of another role's principal when two roles share one
     * (e.g. agents of one process); applying the plan is idempotent either way.
     */
    public List<AclGrant> grants() {
        List<AclGrant> g = new ArrayList<>();
        Topics t = topics;

        Lines d = new Lines(g, "detector", detector.principal());
        d.topic(t.nodeWrites(), AclOperation.READ, "write heat from the nodes: the ingest loops' input");
        d.topic(t.nodeCapacity(), AclOperation.READ, "capacity from the nodes");
        d.topic(t.reports(), AclOperation.WRITE, "its skew reports");
        d.topic(t.alerts(), AclOperation.WRITE, "its alert transitions");
        d.common(t);
        d.streamsApp(detector.applicationId(),
                "its partials topic (<application.id>-partials) and Kafka Streams' internal topics",
                "consumer groups <application.id> (Kafka Streams) and <application.id>-ingest (ingest loops): join, commit offsets",
                PatternType.PREFIXED,
                "exactly-once: Kafka Streams' producers and the ingest loops' (<application.id>-ingest-...)");

        Lines b = new Lines(g, "balancer", balancer.principal());
        b.topic(t.reports(), AclOperation.READ, "skew reports: the weight rounds' input");
        b.topic(t.alerts(), AclOperation.READ, "alerts: start and end weight rounds");
        b.topic(t.weightCommands(), AclOperation.WRITE, "weight commands to the agents (the balancer alone)");
        b.topic(t.nodeWeights(), AclOperation.WRITE, "the weight table the writers route by (the balancer alone)");
        b.topic(t.control(), AclOperation.READ, "operator controls: dry run, pause, excluded nodes (its global store)");
        b.topic(t.proposals(), AclOperation.WRITE, "the weight rounds it would run in dry run");
        b.topic(t.decisions(), AclOperation.WRITE, "why each round acted or did not (the decision log)");
        b.common(t);
        b.streamsApp(balancer.applicationId(), "Kafka Streams' internal topics (state changelogs)",
                "its Kafka Streams consumer group: join, commit offsets", PatternType.LITERAL,
                "exactly-once: Kafka Streams' producers (<application.id>-<process>-<thread>)");

        Lines m = new Lines(g, "migrator", migrator.principal());
        m.topic(t.alerts(), AclOperation.READ, "capacity alerts start repairs");
        m.topic(t.reports(), AclOperation.READ, "skew reports: the cluster's figures");
        m.topic(t.nodeCapacity(), AclOperation.READ, "each node's bytes per slot: what to move");
        m.topic(t.migrationStatus(), AclOperation.READ, "the agents' answers to migration steps");
        m.topic(t.membership(), AclOperation.READ, "joining and leaving nodes");
        m.topic(t.slotTable(), AclOperation.READ, "the slot table as published (its global store)");
        m.topic(t.migrationCommands(), AclOperation.WRITE, "migration commands to the agents (the migrator alone)");
        m.topic(t.slotTable(), AclOperation.WRITE, "the slot table the writers and agents route by (the migrator alone)");
        m.topic(t.membership(), AclOperation.WRITE, "membership changes it completes (joined, drained)");
        m.topic(t.migrationStatus(), AclOperation.WRITE, "its repair statuses");
        m.topic(t.control(), AclOperation.READ, "operator controls: dry run, pause, throttle, excluded nodes");
        m.topic(t.proposals(), AclOperation.WRITE, "the migration plans it would run in dry run");
        m.topic(t.decisions(), AclOperation.WRITE, "why each planning step acted or did not (the decision log)");
        m.common(t);
        m.streamsApp(migrator.applicationId(), "Kafka Streams' internal topics (state changelogs)",
                "its Kafka Streams consumer group: join, commit offsets", PatternType.LITERAL,
                "exactly-once: Kafka Streams' producers (<application.id>-<process>-<thread>)");

        agents.forEach((node, principal) -> {
            Lines a = new Lines(g, "agent " + node, principal);
            a.topic(t.weightCommands(), AclOperation.READ, "weight commands (every node reads the whole topic, keeps its own)");
            a.topic(t.migrationCommands(), AclOperation.READ, "migration commands (every node reads the whole topic, keeps its own)");
            a.add(new ResourcePattern(ResourceType.GROUP, AGENT_GROUP_PREFIX + node, PatternType.LITERAL), AclOperation.READ,
                    "its own consumer group: join, commit offsets after applying");
            a.topic(t.slotTable(), AclOperation.READ, "the router follows the slot table");
            a.topic(t.nodeWeights(), AclOperation.READ, "the router follows the weight table");
            a.topic(t.migrationStatus(), AclOperation.WRITE, "its answers to migration steps");
            a.topic(t.nodeWrites(), AclOperation.WRITE, "the reporter's write heat");
            a.topic(t.nodeCapacity(), AclOperation.WRITE, "the reporter's capacity");
            a.common(t);
        });

        for (String principal : operators) {
            Lines o = new Lines(g, "operator", principal);
            o.topic(t.control(), AclOperation.WRITE, "'skewguard ctl': dry run, pause, throttle, exclude (operators alone)");
            o.topic(t.membership(), AclOperation.WRITE, "'skewguard node': add, drain, remove");
            o.topic(t.control(), AclOperation.READ, "'ctl status': the controls as they stand");
            o.topic(t.membership(), AclOperation.READ, "'node' and 'ctl': the nodes of the cluster");
            o.topic(t.slotTable(), AclOperation.READ, "'node' and 'ctl': candidate sets, read-only marks");
            o.topic(t.reports(), AclOperation.READ, "'node' and 'ctl': the cluster's latest figures");
            o.topic(t.decisions(), AclOperation.READ, "'ctl status' and 'ctl explain': the decision log");
            o.topic(t.proposals(), AclOperation.READ, "'ctl plan': the dry run's proposals");
            o.common(t);
        }
        return List.copyOf(g);
    }

    /** The distinct principals, in role order (operators last). */
    public List<String> principals() {
        return grants().stream().map(AclGrant::principal).distinct().toList();
    }

    /** The grants as a table: role, principal, operation, resource, reason; one line each. */
    public String table() {
        List<AclGrant> grants = grants();
        String[] head = {"ROLE", "PRINCIPAL", "OPERATION", "RESOURCE", "WHY"};
        int[] width = new int[4];
        for (int i = 0; i < 4; i++) {
            width[i] = head[i].length();
        }
        for (AclGrant a : grants) {
            width[0] = Math.max(width[0], a.role().length());
            width[1] = Math.max(width[1], a.principal().length());
            width[2] = Math.max(width[2], a.operationText().length());
            width[3] = Math.max(width[3], a.resourceText().length());
        }
        String format = "%-" + width[0] + "s  %-" + width[1] + "s  %-" + width[2] + "s  %-" + width[3] + "s  %s%n";
        StringBuilder b = new StringBuilder(String.format(format, (Object[]) head));
        for (AclGrant a : grants) {
            b.append(String.format(format, a.role(), a.principal(), a.operationText(), a.resourceText(), a.reason()));
        }
        return b.toString();
    }

    private static void requirePrincipal(String what, String principal) {
        if (principal == null || !PRINCIPAL.matcher(principal).matches()) {
            throw new IllegalArgumentException(what + " must be TYPE:NAME, e.g. User:skewguard-detector, was "
                    + (principal == null ? "nothing" : "'" + principal + "'"));
        }
    }

    /** The lines of one role. */
    private record Lines(List<AclGrant> out, String role, String principal) {

        void add(ResourcePattern resource, AclOperation operation, String reason) {
            out.add(new AclGrant(role, principal, resource, operation, reason));
        }

        void topic(String name, AclOperation operation, String reason) {
            add(new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL), operation, reason);
        }

        /** What every role needs: the start-up check of every SkewGuard topic, and the dead-letter topic. */
        void common(Topics t) {
            if (t.prefix().isEmpty()) {
                // an empty prefix would make a prefixed ACL cover every topic of the cluster
                for (String name : t.all()) {
                    topic(name, AclOperation.DESCRIBE, "start-up check: every SkewGuard topic exists");
                    topic(name, AclOperation.DESCRIBE_CONFIGS, "start-up check: every SkewGuard topic is configured as planned");
                }
            } else {
                ResourcePattern all = new ResourcePattern(ResourceType.TOPIC, t.prefix(), PatternType.PREFIXED);
                add(all, AclOperation.DESCRIBE, "start-up check: every SkewGuard topic exists");
                add(all, AclOperation.DESCRIBE_CONFIGS, "start-up check: every SkewGuard topic is configured as planned");
            }
            topic(t.dlq(), AclOperation.WRITE, "records it cannot decode or act on go to the dead-letter topic");
        }

        void streamsApp(String applicationId, String internalTopics, String groupReason, PatternType groupPattern,
                        String transactionsReason) {
            ResourcePattern internal = new ResourcePattern(ResourceType.TOPIC, applicationId, PatternType.PREFIXED);
            add(internal, AclOperation.CREATE, "creates " + internalTopics);
            add(internal, AclOperation.READ, "reads " + internalTopics);
            add(internal, AclOperation.WRITE, "writes " + internalTopics);
            add(internal, AclOperation.DELETE, "purges consumed records of " + internalTopics + " (deleteRecords)");
            add(internal, AclOperation.DESCRIBE_CONFIGS, "checks the configuration of " + internalTopics);
            add(new ResourcePattern(ResourceType.GROUP, applicationId, groupPattern), AclOperation.READ, groupReason);
            add(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, applicationId, PatternType.PREFIXED), AclOperation.WRITE,
                    transactionsReason);
        }
    }
}
