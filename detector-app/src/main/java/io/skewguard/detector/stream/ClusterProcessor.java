package io.skewguard.detector.stream;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.ClusterDetector;
import io.skewguard.detector.policy.DetectionParameters;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.SkewAlert;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage two, keyed by cluster: merges the {@link PartialHeat}s of every ingest task into one
 * {@link ClusterDetector} per cluster and forwards the reports and alert transitions of every tick
 * that became due on the cluster's own stream time (so a cluster without input does not tick and
 * clusters never mix).
 *
 * <p>The detectors live in memory; three changelogged stores make them survive a restart or a
 * move to another instance: {@value #HEAT_STORE} (each partial's heat per bucket, deleted once the
 * window has passed it), {@value #CAPACITY_STORE} (latest capacity per node) and
 * {@value #PROGRESS_STORE} (stream time, next tick, alert states). Writes per partial, never per
 * event. A detector is rebuilt from the stores the first time its cluster is seen by a task.
 *
 * <p>Stream time is bounded by this process's clock as in stage one (docs/detector.md, "Event
 * time"): a partial moves it at most to the clock. Stored progress whose stream time lies more
 * than {@code max-future-skew} ahead of the clock (written before that bound existed, by one
 * far-future event) would keep the cluster blind for good, so such a cluster starts afresh, and
 * stored capacities that far ahead are dropped.
 */
public final class ClusterProcessor implements Processor<String, PartialHeat, String, SpecificRecord> {

    public static final String HEAT_STORE = "skewguard-detector-heat";
    public static final String CAPACITY_STORE = "skewguard-detector-capacity";
    public static final String PROGRESS_STORE = "skewguard-detector-progress";

    private static final Logger LOG = LoggerFactory.getLogger(ClusterProcessor.class);
    private static final char SEP = '\u0000';

    private final DetectionParameters parameters;
    private final FutureSkew futureSkew;
    private final Map<String, Cluster> clusters = new HashMap<>();
    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, byte[]> heatStore;
    private KeyValueStore<String, byte[]> capacityStore;
    private KeyValueStore<String, byte[]> progressStore;
    private Sensor lateHeat;
    private Sensor skippedTicks;

    public ClusterProcessor(DetectionParameters parameters, FutureSkew futureSkew) {
        this.parameters = parameters;
        this.futureSkew = futureSkew;
    }

    /** A detector and the store keys of the heat it holds, by bucket. */
    private record Cluster(ClusterDetector detector, TreeMap<Long, List<String>> heatKeys) {}

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        // a task revived after a dirty close re-initialises the same instance: the stores are the
        // truth, whatever was in memory may hold uncommitted work
        clusters.clear();
        this.context = context;
        this.heatStore = context.getStateStore(HEAT_STORE);
        this.capacityStore = context.getStateStore(CAPACITY_STORE);
        this.progressStore = context.getStateStore(PROGRESS_STORE);
        this.lateHeat = DetectorMetrics.lateHeatSensor(context);
        this.skippedTicks = DetectorMetrics.skippedTicksSensor(context);
    }

    @Override
    public void process(Record<String, PartialHeat> record) {
        PartialHeat p = record.value();
        if (p == null) {
            return;
        }
        Cluster c = clusters.computeIfAbsent(p.cluster(), this::load);
        long streamTime = FutureSkew.bounded(p.maxEventTime(), context.currentSystemTimeMs());
        ClusterDetector.Result r = c.detector().apply(p.buckets(), p.capacities(), streamTime);

        // the partial's position in the partials topic: unique, and the same when reprocessed
        RecordMetadata m = context.recordMetadata().orElseThrow();
        String source = m.partition() + ":" + m.offset();
        for (BucketHeat h : r.accepted()) {
            String key = p.cluster() + SEP + h.bucket() + SEP + source;
            heatStore.put(key, StateCodec.encode(h));
            c.heatKeys().computeIfAbsent(h.bucket(), b -> new ArrayList<>(2)).add(key);
        }
        for (NodeCapacity n : r.capacityUpdates()) {
            capacityStore.put(p.cluster() + SEP + n.node(), StateCodec.encode(n));
        }
        for (String node : r.forgotten()) {
            capacityStore.delete(p.cluster() + SEP + node);
        }
        if (!r.forgotten().isEmpty()) {
            LOG.info("cluster {}: forgot node(s) {}: no heat in the window and no capacity report for node-expiry",
                    p.cluster(), r.forgotten());
        }
        if (r.droppedBuckets() > 0) {
            lateHeat.record(r.droppedBuckets());
            LOG.warn("cluster {}: dropped {} heat bucket(s) older than the window", p.cluster(), r.droppedBuckets());
        }
        if (r.skippedTicks() > 0) {
            skippedTicks.record(r.skippedTicks());
            LOG.info("cluster {}: stream time jumped; skipped {} empty tick(s)", p.cluster(), r.skippedTicks());
        }
        if (!r.ticks().isEmpty()) {
            evict(c);
        }
        progressStore.put(p.cluster(), StateCodec.encode(c.detector().progress()));

        for (ClusterDetector.Tick t : r.ticks()) {
            long end = t.report().getWindowEnd().toEpochMilli();
            for (SkewAlert a : t.alerts()) {
                LOG.info("cluster {}: {} alert {} -> {} at {} (value {})", a.getCluster(), a.getKind(),
                        a.getPreviousState(), a.getState(), a.getEventTime(), a.getValue());
                context.forward(new Record<>(p.cluster(), a, a.getEventTime().toEpochMilli()));
                DetectorSeries.transition(a);
            }
            context.forward(new Record<>(p.cluster(), t.report(), end));
            DetectorSeries.report(t.report());
        }
    }

    @Override
    public void close() {
        clusters.clear();
    }

    private void evict(Cluster c) {
        long first = c.detector().firstBucket();
        Iterator<Map.Entry<Long, List<String>>> it = c.heatKeys().headMap(first).entrySet().iterator();
        while (it.hasNext()) {
            for (String key : it.next().getValue()) {
                heatStore.delete(key);
            }
            it.remove();
        }
    }

    private Cluster load(String cluster) {
        byte[] progress = progressStore.get(cluster);
        if (progress == null) {
            return new Cluster(new ClusterDetector(cluster, parameters), new TreeMap<>());
        }
        long now = context.currentSystemTimeMs();
        ClusterDetector.Progress stored = StateCodec.decodeProgress(progress);
        Optional<String> ahead = futureSkew.check("stored stream time", stored.watermark(), now);
        ClusterDetector d;
        if (ahead.isPresent()) {
            LOG.warn("cluster {}: {}; starting the cluster afresh", cluster, ahead.get());
            d = new ClusterDetector(cluster, parameters);
        } else {
            d = new ClusterDetector(cluster, parameters, stored);
        }
        String prefix = cluster + SEP;
        List<String> stale = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = capacityStore.prefixScan(prefix, new StringSerializer())) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                NodeCapacity n = StateCodec.decodeCapacity(kv.value);
                if (futureSkew.check("capacity time", n.eventTime(), now).isEmpty()) {
                    d.restore(n);
                } else {
                    stale.add(kv.key);
                }
            }
        }
        stale.forEach(capacityStore::delete);
        stale.clear();
        TreeMap<Long, List<String>> keys = new TreeMap<>();
        try (KeyValueIterator<String, byte[]> it = heatStore.prefixScan(prefix, new StringSerializer())) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                BucketHeat h = StateCodec.decodeBucket(kv.value);
                if (d.restore(h)) {
                    keys.computeIfAbsent(h.bucket(), b -> new ArrayList<>(2)).add(kv.key);
                } else {
                    stale.add(kv.key);
                }
            }
        }
        stale.forEach(heatStore::delete);
        LOG.info("cluster {}: resumed from the state stores: {}", cluster, d);
        return new Cluster(d, keys);
    }
}
