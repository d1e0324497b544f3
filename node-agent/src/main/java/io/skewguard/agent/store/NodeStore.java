package io.skewguard.agent.store;

import java.util.Optional;

/**
 * The storage node as the agent (and the simulator) sees it: a key-value store whose keys fall into
 * slots ({@code slot = xxh3(key) mod S}, {@link io.skewguard.core.slots.SlotTable#slotOf}), plus
 * the operations of one shard migration (docs/design.md §8).
 *
 * <h2>Migration operations</h2>
 *
 * A shard (slot, source) moves to a target in steps; the node agent calls the step that its node has
 * to carry out:
 *
 * <ul>
 *   <li>{@link #startCopy} on the target: from now on every write for the slot that lands on the
 *       source is also written to the target (dual-write), and the slot's data already on the source
 *       is copied over in chunks at no more than the given rate; {@link #copyProgress} reports it;
 *   <li>{@link #prepareSource} on the source: makes sure the dual-write to the target is on;
 *   <li>{@link #commitTarget} / {@link #commitSource}: the target owns the shard now; the source
 *       keeps its copy and keeps dual-writing (writers with an older slot table may still reach it)
 *       until cleanup;
 *   <li>{@link #abortTarget} / {@link #abortSource}: the target drops its copy and the dual-write
 *       stops; the source keeps everything;
 *   <li>{@link #cleanup} on the source: drops the slot's data and the dual-write; later writes of
 *       that slot to this node are refused with {@link StaleRouteException}.
 * </ul>
 *
 * <p><b>Every operation is idempotent</b>: calling it again with the same arguments changes nothing.
 * The agent relies on it after a crash between carrying out a step and recording it in its state
 * file: the command is delivered again and the step is carried out again.
 *
 * <p>Values are last-writer-wins by the writer's version ({@link Versioned}), so the copy and the
 * dual-writes commute.
 */
public interface NodeStore {

    /** Id of the node this store belongs to. */
    String node();

    /** Number of slots S the keys are spread over. */
    int slotCount();

    /**
     * Writes {@code value} under {@code key} unless a value with a higher or equal version is already
     * held; if the key's slot is being copied away, the write is also sent to the target.
     *
     * @throws StaleRouteException if the key's slot has been cleaned up here (moved to another node)
     *     or, for a write this node dual-writes, on the node it forwards it to (the slot has moved on
     *     since): the writer routes again with its current slot table
     */
    void put(String key, long version, byte[] value);

    /** The value held under {@code key} on this node, if any. */
    Optional<Versioned> get(String key);

    /** Records the node's weight factor of weight-table epoch {@code epoch}, for the write router. */
    void applyWeight(long epoch, double weight);

    /**
     * Target side of COPY: start dual-write and the chunked copy of {@code slot} from
     * {@code sourceNode} at most {@code maxBytesPerSec} (0 or less: no limit). If that copy already
     * runs, only its rate changes (to {@code maxBytesPerSec}, from now on); does nothing if it is
     * done; restarts it if it failed.
     */
    void startCopy(String migrationId, int slot, String sourceNode, long maxBytesPerSec);

    /**
     * How the copy of {@code migrationId} stands. An implementation may do the copying work in this
     * call (the in-memory store does, paced by its clock) or in the background.
     */
    CopyProgress copyProgress(String migrationId);

    /** Source side of PREPARE: the dual-write of {@code slot} to {@code targetNode} is on. */
    void prepareSource(String migrationId, int slot, String targetNode);

    /** Target side of COMMIT: the copy of {@code slot} is now this node's shard. */
    void commitTarget(String migrationId, int slot);

    /** Source side of COMMIT: the shard now belongs to {@code targetNode}; keep data and dual-write until cleanup. */
    void commitSource(String migrationId, int slot, String targetNode);

    /** Target side of ABORT: stop the copy and the dual-write, drop whatever was copied of {@code slot}. */
    void abortTarget(String migrationId, int slot);

    /** Source side of ABORT: stop the dual-write of {@code slot} to {@code targetNode}; keep everything. */
    void abortSource(String migrationId, int slot, String targetNode);

    /** Source side of CLEANUP: drop the data of {@code slot} and its dual-write. */
    void cleanup(String migrationId, int slot);
}
