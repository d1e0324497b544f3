package io.skewguard.runtime.topics;

import io.skewguard.runtime.settings.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a {@link TopicPlan} to a Kafka cluster: {@link #create} creates the missing topics,
 * {@link #check} lists every difference, {@link #requireTopics} is what an app calls at start.
 *
 * <p>An existing topic is never changed: a partition count cannot shrink, and growing it would move
 * keys of node- and cluster-keyed topics to other partitions under running apps, so changing a
 * topic is the operator's decision; SkewGuard only reports it.
 *
 * <p>Failures to talk to the cluster are {@link IllegalStateException}s that say which operation
 * failed on which bootstrap servers.
 */
public final class TopicProvisioner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);
    private static final Duration LEADER_POLL = Duration.ofMillis(50);

    private final Admin admin;
    private final boolean ownsAdmin;
    private final String bootstrapServers;
    private final Duration timeout;
    private final boolean clientConfigGiven;

    /**
     * A provisioner using {@code admin}, which stays the caller's (not closed by {@link #close()}).
     *
     * @param bootstrapServers where {@code admin} connects, for messages and the suggested command
     * @param timeout how long to wait for each answer of the cluster
     */
    public TopicProvisioner(Admin admin, String bootstrapServers, Duration timeout) {
        this(admin, false, bootstrapServers, timeout, false);
    }

    private TopicProvisioner(Admin admin, boolean ownsAdmin, String bootstrapServers, Duration timeout, boolean clientConfigGiven) {
        this.admin = admin;
        this.ownsAdmin = ownsAdmin;
        this.bootstrapServers = bootstrapServers;
        this.timeout = timeout;
        this.clientConfigGiven = clientConfigGiven;
    }

    /**
     * A provisioner with its own {@link Admin} made from {@code adminProperties} (e.g.
     * {@code settings.clientProperties(ClientType.ADMIN)}, which carries any SASL/SSL keys), closed by
     * {@link #close()}.
     */
    public static TopicProvisioner connect(Properties adminProperties, Duration timeout) {
        String servers = adminProperties.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "");
        boolean moreThanServers = adminProperties.stringPropertyNames().stream()
                .anyMatch(k -> !k.equals(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) && !k.equals(AdminClientConfig.CLIENT_ID_CONFIG));
        return new TopicProvisioner(Admin.create(adminProperties), true, servers, timeout, moreThanServers);
    }

    /** How many brokers the cluster has. */
    public int brokers() {
        return await(admin.describeCluster().nodes(), "describe the cluster").size();
    }

    /** The plan's topics as they must be on this cluster (the replication factor depends on its brokers). */
    public List<TopicSpec> resolve(TopicPlan plan) {
        return plan.topics(brokers());
    }

    /**
     * Creates the planned topics that do not exist, waits until each of their partitions has a
     * leader, and reports how the ones that existed differ from the plan (they are left alone).
     * Running it again creates nothing.
     */
    public Provisioned create(TopicPlan plan) {
        List<TopicSpec> specs = resolve(plan);
        Set<String> existing = existingTopics();
        List<TopicSpec> missing = specs.stream().filter(s -> !existing.contains(s.name())).toList();
        List<String> alreadyThere = new ArrayList<>(specs.stream().map(TopicSpec::name).filter(existing::contains).toList());
        List<TopicSpec> created = new ArrayList<>();
        if (!missing.isEmpty()) {
            Map<String, KafkaFuture<Void>> results = admin.createTopics(missing.stream().map(TopicSpec::newTopic).toList()).values();
            for (TopicSpec spec : missing) {
                try {
                    await(results.get(spec.name()), "create topic " + spec.name());
                    created.add(spec);
                    LOG.info("created topic {}: {}", spec.name(), spec.summary());
                } catch (IllegalStateException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    // created by someone else between our listing and our request: theirs stays, and is checked below
                    alreadyThere.add(spec.name());
                }
            }
            awaitLeaders(created);
        }
        List<TopicDifference> differences = compare(specs, plan);
        // partition counts, retention and replication are the operator's to choose; what an app
        // cannot work right with is worth a warning on every start
        differences.stream().filter(TopicProvisioner::mattersToApps)
                .forEach(d -> LOG.warn("topic differs from what SkewGuard needs: {}", d.line()));
        return new Provisioned(created, alreadyThere, differences);
    }

    /** Every way the cluster's topics differ from the plan; empty when they all match. */
    public List<TopicDifference> check(TopicPlan plan) {
        return compare(resolve(plan), plan);
    }

    /**
     * What an app calls at start: when planned topics are missing, creates them if
     * {@code createIfMissing} (the {@code create-topics} setting), or refuses with a
     * {@link MissingTopicsException} naming them and the command that creates them. Other
     * differences are returned; those an app cannot work right with (reports and alerts not
     * co-partitioned, a table not compacted) are logged as warnings, while partition counts,
     * retention and replication are the operator's to choose.
     *
     * @throws MissingTopicsException when topics are missing and {@code createIfMissing} is false
     */
    public Provisioned requireTopics(TopicPlan plan, boolean createIfMissing) {
        if (createIfMissing) {
            return create(plan);
        }
        List<TopicSpec> specs = resolve(plan);
        List<TopicDifference> differences = compare(specs, plan);
        List<String> missing = differences.stream().filter(d -> d instanceof TopicDifference.Missing).map(TopicDifference::topic).toList();
        if (!missing.isEmpty()) {
            throw new MissingTopicsException(missing, missingMessage(plan, missing));
        }
        // partition counts, retention and replication are the operator's to choose; what an app
        // cannot work right with is worth a warning on every start
        differences.stream().filter(TopicProvisioner::mattersToApps)
                .forEach(d -> LOG.warn("topic differs from what SkewGuard needs: {}", d.line()));
        return new Provisioned(List.of(), specs.stream().map(TopicSpec::name).toList(), differences);
    }

    /** Reports and alerts not co-partitioned, or a table that is not compacted. */
    static boolean mattersToApps(TopicDifference d) {
        return d instanceof TopicDifference.NotCoPartitioned
                || (d instanceof TopicDifference.Config c && c.key().equals(TopicConfig.CLEANUP_POLICY_CONFIG));
    }

    String missingMessage(TopicPlan plan, List<String> missing) {
        return "missing SkewGuard topic" + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " on " + bootstrapServers
                + "; create them with\n  " + plan.createCommand(bootstrapServers)
                + (clientConfigGiven ? " --config FILE\n(FILE: the Kafka client keys this app was given, e.g. security.protocol, sasl.*, ssl.*;"
                        + " on a cluster with ACLs a topic this app's principal may not describe looks missing too: see './skewguard acls')" : "")
                + "\nor start with create-topics=true";
    }

    private List<TopicDifference> compare(List<TopicSpec> specs, TopicPlan plan) {
        Set<String> existing = existingTopics();
        List<String> present = specs.stream().map(TopicSpec::name).filter(existing::contains).toList();
        Map<String, TopicDescription> descriptions = present.isEmpty() ? Map.of()
                : await(admin.describeTopics(present).allTopicNames(), "describe topics " + present);
        Map<String, Config> configs = new LinkedHashMap<>();
        if (!present.isEmpty()) {
            List<ConfigResource> resources = present.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
            await(admin.describeConfigs(resources).all(), "describe the configs of " + present)
                    .forEach((r, c) -> configs.put(r.name(), c));
        }
        List<TopicDifference> differences = new ArrayList<>();
        for (TopicSpec spec : specs) {
            TopicDescription d = descriptions.get(spec.name());
            if (d == null) {
                differences.add(new TopicDifference.Missing(spec.name(), spec));
                continue;
            }
            if (d.partitions().size() != spec.partitions()) {
                differences.add(new TopicDifference.Partitions(spec.name(), d.partitions().size(), spec.partitions()));
            }
            int replicas = d.partitions().stream().mapToInt(p -> p.replicas().size())
                    .filter(n -> n != spec.replicationFactor()).min().orElse(spec.replicationFactor());
            if (replicas != spec.replicationFactor()) {
                differences.add(new TopicDifference.ReplicationFactor(spec.name(), replicas, spec.replicationFactor()));
            }
            Config config = configs.get(spec.name());
            spec.configs().forEach((key, planned) -> {
                ConfigEntry entry = config == null ? null : config.get(key);
                String actual = entry == null ? null : entry.value();
                if (!sameValue(key, actual, planned)) {
                    differences.add(new TopicDifference.Config(spec.name(), key, actual, planned));
                }
            });
        }
        for (List<String> group : plan.coPartitioned()) {
            if (group.stream().allMatch(descriptions::containsKey)) {
                List<Integer> counts = group.stream().map(n -> descriptions.get(n).partitions().size()).toList();
                if (new TreeSet<>(counts).size() > 1) {
                    differences.add(new TopicDifference.NotCoPartitioned(group, counts));
                }
            }
        }
        return differences;
    }

    /** {@code cleanup.policy} is a list ({@code compact,delete} = {@code delete,compact}); the rest compare as numbers or text. */
    private static boolean sameValue(String key, String actual, String planned) {
        if (actual == null) {
            return false;
        }
        if (key.equals(TopicConfig.CLEANUP_POLICY_CONFIG)) {
            return policies(actual).equals(policies(planned));
        }
        return actual.trim().equals(planned);
    }

    private static Set<String> policies(String value) {
        return Arrays.stream(value.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private Set<String> existingTopics() {
        return new LinkedHashSet<>(await(admin.listTopics().names(), "list topics"));
    }

    /** Waits until every partition of {@code created} has a leader, so that an app started right after finds them usable. */
    private void awaitLeaders(Collection<TopicSpec> created) {
        if (created.isEmpty()) {
            return;
        }
        List<String> names = names(created);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                boolean led = created.stream().allMatch(s -> d.containsKey(s.name()) && d.get(s.name()).partitions().size() == s.partitions()
                        && d.get(s.name()).partitions().stream().map(TopicPartitionInfo::leader).allMatch(l -> l != null && !l.isEmpty()));
                if (led && leadersAnswer(created)) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw failed("describe the created topics " + names, e.getCause());
                }
                // the metadata of a topic just created can lag behind the controller for a moment
            } catch (TimeoutException e) {
                throw failed("describe the created topics " + names, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the created topics " + names, e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the partitions of " + names + " on " + bootstrapServers + " still have no leader after "
                        + Durations.format(timeout));
            }
            try {
                Thread.sleep(LEADER_POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the created topics " + names, e);
            }
        }
    }

    /**
     * Whether every created partition's leader answers a request for its end offset: the broker's
     * metadata names a leader a moment before that leader takes requests, and a produce in between
     * fails (an idempotent producer whose later batches got in first then retries the first one as
     * out of order until its delivery timeout).
     */
    private boolean leadersAnswer(Collection<TopicSpec> created) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> specs = new LinkedHashMap<>();
        for (TopicSpec s : created) {
            for (int p = 0; p < s.partitions(); p++) {
                specs.put(new TopicPartition(s.name(), p), OffsetSpec.latest());
            }
        }
        try {
            admin.listOffsets(specs).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false; // not the leader yet: asked again after the poll interval
            }
            // e.g. no right to describe the topics: asking again changes nothing
            throw failed("ask the leaders of the created topics " + names(created) + " for their end offsets", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot ask the leaders of the created topics " + names(created) + " on "
                    + bootstrapServers + " for their end offsets: no answer within " + Durations.format(timeout), e);
        }
    }

    private static List<String> names(Collection<TopicSpec> specs) {
        return specs.stream().map(TopicSpec::name).toList();
    }

    private <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw failed(what, e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + " on " + bootstrapServers + ": no answer within " + Durations.format(timeout), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what + " on " + bootstrapServers, e);
        }
    }

    private IllegalStateException failed(String what, Throwable cause) {
        return new IllegalStateException("cannot " + what + " on " + bootstrapServers + ": " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
    }

    /** Closes the {@link Admin} if this provisioner made it ({@link #connect}). */
    @Override
    public void close() {
        if (ownsAdmin) {
            // every call made was awaited; one still pending is one given up on (no answer in time)
            admin.close(Duration.ZERO);
        }
    }
}
