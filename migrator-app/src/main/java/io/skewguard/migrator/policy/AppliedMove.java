package io.skewguard.migrator.policy;

/**
 * A committed migration that the nodes' capacity reports may not show yet. Each side is judged by
 * its own clock: the source's report shows the move once it was read after the source cleaned up,
 * the target's once read after the target committed.
 */
public record AppliedMove(int slot, String source, String target, long bytes, long targetCommittedAt, long sourceCleanedAt) {}
