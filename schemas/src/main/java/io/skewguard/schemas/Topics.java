package io.skewguard.schemas;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The default topic names (docs/design.md §4), under one configurable prefix.
 *
 * <p>Every app derives its topic names from one instance of this record so that a deployment that
 * shares a Kafka cluster with others (prefix {@code "team-a.skew."}) or runs side by side with a
 * test stack changes the prefix in one place and all apps agree on every name.
 *
 * @param prefix prepended to every topic's base name; {@link #DEFAULT_PREFIX} by default, may be
 *     empty, must only use the characters Kafka allows in topic names
 */
public record Topics(String prefix) {

  /** The default prefix (docs/design.md §4). */
  public static final String DEFAULT_PREFIX = "skew.";

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");

  /** Checks that the prefix keeps every topic name legal for Kafka, so a typo fails at start-up. */
  public Topics {
    Objects.requireNonNull(prefix, "prefix");
    if (!LEGAL.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "topic prefix '" + prefix + "' may only contain ASCII letters, digits, '.', '_' and '-'");
    }
  }

  /** The topics with the default prefix {@code "skew."}. */
  public static Topics defaults() {
    return new Topics(DEFAULT_PREFIX);
  }

  /** Topic of {@code WriteEvent}s, nodes to detector. */
  public String nodeWrites() {
    return prefix + "node-writes";
  }

  /** Topic of {@code CapacityEvent}s, nodes to detector. */
  public String nodeCapacity() {
    return prefix + "node-capacity";
  }

  /** Topic of {@code SkewReport}s, detector to balancer, migrator and dashboards. */
  public String reports() {
    return prefix + "reports";
  }

  /** Topic of {@code SkewAlert}s, detector to balancer and migrator. */
  public String alerts() {
    return prefix + "alerts";
  }

  /** Topic of {@code WeightCommand}s, balancer to agents. */
  public String weightCommands() {
    return prefix + "weight-commands";
  }

  /** Compacted topic of {@code NodeWeight}s, balancer to writers. */
  public String nodeWeights() {
    return prefix + "node-weights";
  }

  /** Topic of {@code MigrationCommand}s, migrator to agents. */
  public String migrationCommands() {
    return prefix + "migration-commands";
  }

  /** Topic of {@code MigrationStatus} answers, agents to migrator. */
  public String migrationStatus() {
    return prefix + "migration-status";
  }

  /** Compacted topic of {@code SlotAssignment}s, migrator to writers and agents. */
  public String slotTable() {
    return prefix + "slot-table";
  }

  /**
   * Compacted topic of {@code NodeMembership} records, key {@code cluster/node}: operators (the
   * {@code node} command) and the migrator to the migrator and people.
   */
  public String membership() {
    return prefix + "membership";
  }

  /**
   * Compacted topic of {@code OperatorControl} records, key {@code cluster/dry-run}, {@code
   * cluster/pause}, {@code cluster/throttle} or {@code cluster/exclude/node}: operators (the {@code
   * ctl} command) to the balancer and the migrator.
   */
  public String control() {
    return prefix + "control";
  }

  /** Topic of {@code Proposal}s, key cluster: what the balancer and the migrator would do in dry run. */
  public String proposals() {
    return prefix + "proposals";
  }

  /** Topic of {@code Decision}s, key cluster: why the balancer and the migrator acted or did not (the decision log). */
  public String decisions() {
    return prefix + "decisions";
  }

  /** Dead-letter topic every app writes undecodable or invalid records to. */
  public String dlq() {
    return prefix + "dlq";
  }

  /** Every topic, in the order of docs/design.md §4.1; handy for creating them all at start-up. */
  public List<String> all() {
    return List.of(
        nodeWrites(),
        nodeCapacity(),
        reports(),
        alerts(),
        weightCommands(),
        nodeWeights(),
        migrationCommands(),
        migrationStatus(),
        slotTable(),
        membership(),
        control(),
        proposals(),
        decisions(),
        dlq());
  }

  /** The compacted topics (latest value per key is the state), so topic creation sets cleanup.policy. */
  public List<String> compacted() {
    return List.of(nodeWeights(), slotTable(), membership(), control());
  }
}
