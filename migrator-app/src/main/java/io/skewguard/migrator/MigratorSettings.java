package io.skewguard.migrator;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.policy.AdaptiveRateLimiter;
import io.skewguard.migrator.policy.ColdestFirstPlanner;
import io.skewguard.migrator.policy.Timeouts;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The migrator's configuration, read once at start (DESIGN.md section 5 defaults).
 *
 * <p>Every setting has one name, used as the key in the {@code --config} properties file, as the
 * flag ({@code --<name>}) and, upper-cased with {@code -} as {@code _} and prefixed by
 * {@code SKEWGUARD_MIGRATOR_}, as the environment variable. Durations are ISO-8601
 * ({@code PT30S}) or a number of milliseconds. Precedence: flags over environment over file over
 * defaults.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param schemaRegistryUrl schema registry URL ({@code mock://scope} for tests and the embedded stack)
 * @param applicationId Kafka Streams application id (consumer group, internal topic prefix)
 * @param topicPrefix prefix of every topic name
 * @param stateDir Kafka Streams state directory
 * @param targetCv capacity CV the planner aims for
 * @param overshoot share of a source's excess it may overshoot by (bounds bytes moved)
 * @param maxParallel most migrations of one switch batch (disjoint node pairs)
 * @param maxConsecutiveAborts a repair stops (FAILED status) after this many aborted batches in a row
 * @param maxBytesPerSec migration bandwidth budget of a cluster at low write load
 * @param lowLoad write load (rate / decaying peak) up to which the budget is full
 * @param highLoad write load from which the budget is at its floor
 * @param budgetFloor share of the budget left at peak load; never zero
 * @param peakHalfLife half-life of the remembered peak write rate
 * @param copyStallTimeout a copy without any answer for this long aborts its batch
 * @param prepareTimeout every PREPARE of a batch must be answered within this
 * @param retryInterval unanswered COMMIT and CLEANUP (past the commit point) are sent again after this
 * @param abortTimeout how long to wait for ABORT answers before freeing the nodes
 * @param tickInterval wall-clock punctuation that drives the timeouts
 * @param commitInterval Kafka Streams commit interval (exactly_once_v2 transactions)
 * @param slotCount slots S of a slot table built from the ring
 * @param candidates candidate-set size m of a slot table built from the ring
 * @param vnodesPerUnit virtual points per unit of node weight of that ring
 */
public record MigratorSettings(
        String bootstrapServers,
        String schemaRegistryUrl,
        String applicationId,
        String topicPrefix,
        String stateDir,
        double targetCv,
        double overshoot,
        int maxParallel,
        int maxConsecutiveAborts,
        long maxBytesPerSec,
        double lowLoad,
        double highLoad,
        double budgetFloor,
        Duration peakHalfLife,
        Duration copyStallTimeout,
        Duration prepareTimeout,
        Duration retryInterval,
        Duration abortTimeout,
        Duration tickInterval,
        Duration commitInterval,
        int slotCount,
        int candidates,
        int vnodesPerUnit,
        double maintenanceFactor,
        Duration maintenanceHold) {

    /** Environment variables start with this. */
    public static final String ENV_PREFIX = "SKEWGUARD_MIGRATOR_";

    public MigratorSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrap-servers");
        Objects.requireNonNull(schemaRegistryUrl, "schema-registry-url");
        new Topics(topicPrefix); // checks the prefix
        SlotTable.requireSlotCount(slotCount);
        if (candidates < 1 || maxParallel < 1 || vnodesPerUnit < 1 || maxConsecutiveAborts < 1) {
            throw new IllegalArgumentException("candidates, max-parallel, max-consecutive-aborts and vnodes-per-unit must be >= 1");
        }
        timeouts(copyStallTimeout, prepareTimeout, retryInterval, abortTimeout);
        new AdaptiveRateLimiter(maxBytesPerSec, lowLoad, highLoad, budgetFloor, peakHalfLife.toMillis());
        new ColdestFirstPlanner(targetCv, overshoot);
        if (!(maintenanceFactor == 0 || maintenanceFactor >= 1) || maintenanceHold.isNegative()) {
            throw new IllegalArgumentException("maintenance-factor must be 0 (off) or >= 1 and maintenance-hold >= 0");
        }
        if (tickInterval.toMillis() < 1 || commitInterval.toMillis() < 1) {
            throw new IllegalArgumentException("tick-interval and commit-interval must be >= 1 ms");
        }
    }

    /** The defaults, named as in the file, the flags and the environment. */
    public static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("bootstrap-servers", "localhost:9092");
        d.put("schema-registry-url", "http://localhost:8081");
        d.put("application-id", "skewguard-migrator");
        d.put("topic-prefix", Topics.DEFAULT_PREFIX);
        d.put("state-dir", System.getProperty("java.io.tmpdir") + "/skewguard-migrator");
        d.put("target-cv", "0.10");
        d.put("overshoot", "0.2");
        d.put("max-parallel", "4");
        d.put("max-consecutive-aborts", "3");
        d.put("max-bytes-per-sec", Long.toString(100L * 1024 * 1024));
        d.put("low-load", "0.5");
        d.put("high-load", "0.9");
        d.put("budget-floor", "0.1");
        d.put("peak-half-life", "PT12H");
        d.put("copy-stall-timeout", "PT10M");
        d.put("prepare-timeout", "PT30S");
        d.put("retry-interval", "PT30S");
        d.put("abort-timeout", "PT2M");
        d.put("tick-interval", "PT1S");
        d.put("commit-interval", "PT1S");
        d.put("slot-count", Integer.toString(SlotTable.DEFAULT_SLOT_COUNT));
        d.put("candidates", Integer.toString(SlotTable.DEFAULT_CANDIDATES));
        d.put("vnodes-per-unit", Integer.toString(HashRing.DEFAULT_VNODES_PER_UNIT));
        d.put("maintenance-factor", "1.5");
        d.put("maintenance-hold", "PT5M");
        return d;
    }

    /** Settings from the defaults overlaid with {@code values} (names as in {@link #defaults()}). */
    public static MigratorSettings from(Map<String, String> values) {
        Map<String, String> v = new LinkedHashMap<>(defaults());
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!v.containsKey(e.getKey())) {
                throw new IllegalArgumentException("unknown migrator setting '" + e.getKey() + "'");
            }
            v.put(e.getKey(), e.getValue().trim());
        }
        return new MigratorSettings(
                v.get("bootstrap-servers"),
                v.get("schema-registry-url"),
                v.get("application-id"),
                v.get("topic-prefix"),
                v.get("state-dir"),
                number(v, "target-cv"),
                number(v, "overshoot"),
                integer(v, "max-parallel"),
                integer(v, "max-consecutive-aborts"),
                Long.parseLong(v.get("max-bytes-per-sec")),
                number(v, "low-load"),
                number(v, "high-load"),
                number(v, "budget-floor"),
                duration(v, "peak-half-life"),
                duration(v, "copy-stall-timeout"),
                duration(v, "prepare-timeout"),
                duration(v, "retry-interval"),
                duration(v, "abort-timeout"),
                duration(v, "tick-interval"),
                duration(v, "commit-interval"),
                integer(v, "slot-count"),
                integer(v, "candidates"),
                integer(v, "vnodes-per-unit"),
                number(v, "maintenance-factor"),
                duration(v, "maintenance-hold"));
    }

    /**
     * The settings from the layers, later wins: defaults, the {@code --config} file, the environment,
     * the flags given on the command line.
     */
    public static MigratorSettings resolve(Map<String, String> file, Map<String, String> env, Map<String, String> flags) {
        Map<String, String> values = new LinkedHashMap<>(file);
        values.putAll(fromEnvironment(env));
        values.putAll(flags);
        return from(values);
    }

    /** The values of {@code env} that name migrator settings, keyed by setting name. */
    public static Map<String, String> fromEnvironment(Map<String, String> env) {
        Map<String, String> found = new LinkedHashMap<>();
        for (String name : defaults().keySet()) {
            String value = env.get(envName(name));
            if (value != null) {
                found.put(name, value);
            }
        }
        return found;
    }

    /** {@code max-parallel} → {@code SKEWGUARD_MIGRATOR_MAX_PARALLEL}. */
    public static String envName(String setting) {
        return ENV_PREFIX + setting.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    public Topics topics() {
        return new Topics(topicPrefix);
    }

    public Timeouts timeouts() {
        return timeouts(copyStallTimeout, prepareTimeout, retryInterval, abortTimeout);
    }

    public AdaptiveRateLimiter rateLimiter() {
        return new AdaptiveRateLimiter(maxBytesPerSec, lowLoad, highLoad, budgetFloor, peakHalfLife.toMillis());
    }

    public ColdestFirstPlanner planner() {
        return new ColdestFirstPlanner(targetCv, overshoot);
    }

    private static Timeouts timeouts(Duration copyStall, Duration prepare, Duration retry, Duration abort) {
        return new Timeouts(copyStall.toMillis(), prepare.toMillis(), retry.toMillis(), abort.toMillis());
    }

    private static double number(Map<String, String> v, String name) {
        try {
            return Double.parseDouble(v.get(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, was '" + v.get(name) + "'", e);
        }
    }

    private static int integer(Map<String, String> v, String name) {
        try {
            return Integer.parseInt(v.get(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, was '" + v.get(name) + "'", e);
        }
    }

    private static Duration duration(Map<String, String> v, String name) {
        String text = v.get(name);
        try {
            return text.matches("\\d+") ? Duration.ofMillis(Long.parseLong(text)) : Duration.parse(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + " must be an ISO-8601 duration (PT30S) or milliseconds, was '" + text + "'", e);
        }
    }
}
