package io.skewguard.detector.policy;

/**
 * Heat of one cluster during one tick bucket, as aggregated by one ingest task: bytes per node
 * and bytes per slot (parallel arrays). The unit in which heat travels from stage one to the
 * per-cluster stage and is kept in its store.
 */
public record BucketHeat(long bucket, String[] nodes, long[] nodeBytes, int[] slots, long[] slotBytes) {

    public BucketHeat {
        if (nodes.length != nodeBytes.length || slots.length != slotBytes.length) {
            throw new IllegalArgumentException("parallel arrays differ in length");
        }
    }
}
