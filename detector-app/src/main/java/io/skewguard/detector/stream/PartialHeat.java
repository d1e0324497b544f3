package io.skewguard.detector.stream;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.NodeCapacity;
import java.util.List;

/**
 * What one ingest loop learned about one cluster since its last flush: heat per tick bucket, the
 * latest capacity report per node, and the highest event time. Travels, keyed by cluster, over
 * the partials topic ({@code <application-id>-partials}) from stage one to the per-cluster stage.
 */
public record PartialHeat(String cluster, long maxEventTime, List<BucketHeat> buckets, List<NodeCapacity> capacities) {}
