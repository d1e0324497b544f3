package io.skewguard.sim.demo;

import io.skewguard.schemas.SlotAssignment;
import io.skewguard.sim.run.PolicyRun;
import java.util.List;
import java.util.Map;

/**
 * What one demo run did, as seen from the topics and the nodes.
 *
 * @param completed whether the scenario ran to its end (false: stopped early, e.g. Ctrl-C)
 * @param simulatedMillis simulated time that passed
 * @param wallSeconds wall time from the first step to the end of the drain
 * @param weightCommands weight commands the balancer sent
 * @param weightRounds weight-table epochs (rounds) among them
 * @param migrationsCommitted migrations whose target answered COMMIT DONE
 * @param migrationsAborted migrations that were aborted
 * @param routingEpoch highest routing epoch of the published slot table (one per committed switch)
 * @param bytesMoved simulated bytes copied by committed migrations
 * @param keysWritten keys written (starting data and the run's writes)
 * @param keysUnreadable keys no node of their final candidate set holds at their last version
 * @param unreadableExamples a few of them, for the message
 * @param run the figures and series, for the table and the report
 * @param played the scenario's membership events as the demo played them (joins, drain requests and
 *     cancellations), one line each, in order
 * @param membership every record of the membership topic, in the order read
 * @param slotTable the latest slot-table row of every slot the migrator published
 * @param shardsHeld shards (slots with bytes) every started node holds at the end, from its store
 * @param storedBytes simulated bytes every started node holds at the end, from its store
 */
public record DemoOutcome(
        boolean completed,
        long simulatedMillis,
        double wallSeconds,
        long weightCommands,
        int weightRounds,
        int migrationsCommitted,
        int migrationsAborted,
        long routingEpoch,
        long bytesMoved,
        long keysWritten,
        long keysUnreadable,
        List<String> unreadableExamples,
        PolicyRun run,
        List<String> played,
        List<LoopObserver.MembershipChange> membership,
        Map<Integer, SlotAssignment> slotTable,
        Map<String, Integer> shardsHeld,
        Map<String, Long> storedBytes) {

    public DemoOutcome {
        played = List.copyOf(played);
        membership = List.copyOf(membership);
        slotTable = Map.copyOf(slotTable);
        shardsHeld = Map.copyOf(shardsHeld);
        storedBytes = Map.copyOf(storedBytes);
    }
}
