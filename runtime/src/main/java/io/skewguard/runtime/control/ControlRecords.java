package io.skewguard.runtime.control;

import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.auth.NodeKeys;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;

/**
 * The contract of the control topic: its keys ({@code <cluster>/dry-run}, {@code <cluster>/pause},
 * {@code <cluster>/throttle}, {@code <cluster>/exclude/<node>}; a cluster id holds no {@code /}),
 * what a valid record looks like, and who may write one. The balancer and the migrator both judge
 * each record with {@link #problem}, so they take and refuse the same records.
 */
public final class ControlRecords {

    private ControlRecords() {}

    /** The key of a control of {@code cluster}; {@code node} only for {@link ControlKind#EXCLUDE}. */
    public static String key(String cluster, ControlKind kind, String node) {
        return switch (kind) {
            case DRY_RUN -> cluster + "/dry-run";
            case PAUSE -> cluster + "/pause";
            case THROTTLE -> cluster + "/throttle";
            case EXCLUDE -> cluster + "/exclude/" + node;
        };
    }

    /** The cluster part of a control key (before its first {@code /}), or the whole key when it has none. */
    public static String clusterOf(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(0, slash);
    }

    /**
     * Why {@code value}, read under {@code key}, must not be taken (a dead-letter reason starting
     * {@code invalid:} or {@code unauthenticated:}), or empty when it is a valid control.
     *
     * @param operatorKeys operators' keys; {@link NodeKeys#none()} when controls are not authenticated
     * @param headers, topic, keyBytes, valueBytes the record as read, for its signature
     */
    public static Optional<String> problem(String key, OperatorControl value, NodeKeys operatorKeys, Headers headers, String topic,
            byte[] keyBytes, byte[] valueBytes) {
        Optional<String> bad = StateLimits.checkId("cluster", value.getCluster())
                .or(() -> value.getCluster().contains("/")
                        ? Optional.of("invalid: cluster id '" + value.getCluster() + "' holds '/', which ends the cluster part of a control key")
                        : Optional.empty())
                .or(() -> StateLimits.checkId("operator", value.getOperator()));
        if (bad.isPresent()) {
            return bad;
        }
        if (value.getControl() == ControlKind.EXCLUDE) {
            Optional<String> node = value.getNode() == null ? Optional.of("invalid: EXCLUDE names no node")
                    : StateLimits.checkId("node", value.getNode());
            if (node.isPresent()) {
                return node;
            }
        } else if (value.getNode() != null) {
            return Optional.of("invalid: " + value.getControl() + " names node '" + value.getNode() + "'; only EXCLUDE names a node");
        }
        if (value.getControl() == ControlKind.THROTTLE && value.getEnabled()
                && (value.getBytesPerSec() == null || value.getBytesPerSec() < 1)) {
            return Optional.of("invalid: THROTTLE on with bytesPerSec " + value.getBytesPerSec() + "; a throttle is at least 1 byte/s");
        }
        if (value.getControl() != ControlKind.THROTTLE && value.getBytesPerSec() != null
                || value.getControl() == ControlKind.THROTTLE && !value.getEnabled() && value.getBytesPerSec() != null) {
            return Optional.of("invalid: bytesPerSec set on " + value.getControl() + (value.getEnabled() ? "" : " off")
                    + "; only THROTTLE on carries a rate");
        }
        String expected = key(value.getCluster(), value.getControl(), value.getNode());
        if (!expected.equals(key)) {
            return Optional.of("invalid: a " + value.getControl() + " control of cluster '" + value.getCluster() + "' has key '"
                    + expected + "', not '" + key + "'");
        }
        if (operatorKeys.configured()) {
            return operatorKeys.problem(value.getOperator(), headers, topic, keyBytes, valueBytes);
        }
        return Optional.empty();
    }
}
