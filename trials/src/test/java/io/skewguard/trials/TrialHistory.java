package io.skewguard.trials;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.service.WriteJournal.LastWrite;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.WeightCommand;
import java.util.List;
import java.util.Map;

/**
 * What a trial left behind, read after the loop went quiet: every record of the topics (in each
 * topic's order, read committed), what each agent recorded as applied (its state file), what each
 * node's store holds, and the load writer's journal. {@link TrialChecks} judges it; nothing here
 * comes from a log.
 *
 * @param cluster the cluster
 * @param startingTable the candidate set of every slot in the writers' starting table (the ring of
 *     the hosted nodes), by slot
 * @param alerts the alerts topic
 * @param reports the reports topic
 * @param weightCommands the weight-commands topic
 * @param nodeWeights the node-weights topic (every row, not compacted yet)
 * @param migrationCommands the migration-commands topic
 * @param statuses the migration-status topic, answers and repair statuses
 * @param slotRows the slot-table topic (every row; a slot's rows in the order written)
 * @param agents each node's applied state, by node
 * @param stores each node's keys, by node, then slot, then key: the version held
 * @param journal the last write of every key the load writer completed
 * @param unconsumed each node's agent group: command records not consumed and committed, by node
 */
record TrialHistory(
        String cluster,
        List<List<String>> startingTable,
        List<SkewAlert> alerts,
        List<SkewReport> reports,
        List<WeightCommand> weightCommands,
        List<NodeWeight> nodeWeights,
        List<MigrationCommand> migrationCommands,
        List<MigrationStatus> statuses,
        List<SlotAssignment> slotRows,
        Map<String, AgentState> agents,
        Map<String, Map<Integer, Map<String, Long>>> stores,
        Map<String, LastWrite> journal,
        Map<String, Long> unconsumed) {
}
