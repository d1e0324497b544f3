package io.skewguard.migrator.policy;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;

/**
 * An agent's answer as the state machine needs it.
 *
 * @param migrationId migration answered
 * @param node node that answers
 * @param phase step answered
 * @param outcome PROGRESS, DONE or FAILED
 * @param bytesCopied COPY progress
 * @param message failure reason, may be null
 * @param eventTime the agent's clock when it answered
 */
public record StatusEvent(
        String migrationId, String node, MigrationPhase phase, StepResult outcome, long bytesCopied, String message, long eventTime) {}
