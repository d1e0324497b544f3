package io.skewguard.migrator.policy;

/**
 * One slot as {@link SpreadPolicy} sees it in a report.
 *
 * @param slot              the slot
 * @param heat              its bytes written in the report's window
 * @param ownCapacity       total bytes of its own writers (candidates that take writes), without the spread
 * @param spreadCount       how many spread nodes it has now
 * @param writersCapacity   total bytes of all its writers now (own writers and spread nodes)
 */
public record SlotLoad(int slot, long heat, double ownCapacity, int spreadCount, double writersCapacity) {}
