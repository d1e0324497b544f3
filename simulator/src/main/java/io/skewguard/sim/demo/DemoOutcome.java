package io.skewguard.sim.demo;

import io.skewguard.sim.run.PolicyRun;
import java.util.List;

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
        PolicyRun run) {}
