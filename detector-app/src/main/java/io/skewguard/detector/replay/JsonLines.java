package io.skewguard.detector.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotHeat;
import io.skewguard.schemas.WriteEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * The replay harness's JSON-lines format (a public interface, documented in docs/detector.md).
 *
 * <p>Input, one event per line:
 *
 * <pre>
 * {"type":"write","cluster":"c1","node":"n1","slot":12,"bytes":4096,"ops":1,"time":1700000000000}
 * {"type":"capacity","cluster":"c1","node":"n1","used":500,"total":1000,"rack":"r1",
 *  "shards":[{"slot":12,"used":100}],"time":1700000000000}
 * </pre>
 *
 * ({@code ops} defaults to 1, {@code rack} and {@code shards} are optional; unknown fields are
 * ignored). Output, one line per report and per alert; see {@link #report} and {@link #alert}.
 */
public final class JsonLines {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonLines() {}

    /**
     * Parses one input line into a {@link WriteEvent} or {@link CapacityEvent}.
     *
     * @throws IllegalArgumentException naming the problem when the line is not a valid event
     */
    public static SpecificRecord parse(String line) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        String type = text(n, "type");
        return switch (type) {
            case "write" -> new WriteEvent(text(n, "cluster"), text(n, "node"), (int) integer(n, "slot"),
                    integer(n, "bytes"), n.has("ops") ? integer(n, "ops") : 1L, Instant.ofEpochMilli(integer(n, "time")));
            case "capacity" -> new CapacityEvent(text(n, "cluster"), text(n, "node"), integer(n, "used"),
                    integer(n, "total"), n.hasNonNull("rack") ? text(n, "rack") : null, shards(n),
                    Instant.ofEpochMilli(integer(n, "time")));
            default -> throw new IllegalArgumentException("unknown type '" + type + "' (write or capacity)");
        };
    }

    /**
     * A report line: {@code type, cluster, windowStart, windowEnd, heatGini, capacityCv,
     * shardCapacityCv, nodes (count), totalWriteBytes, heatState, capacityState, hottestSlots
     * [{slot, bytes}], nodeFigures [{node, rack, heatBytes, usedBytes, totalBytes, utilisation}]}.
     */
    public static String report(SkewReport r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "report");
        o.put("cluster", r.getCluster());
        o.put("windowStart", r.getWindowStart().toEpochMilli());
        o.put("windowEnd", r.getWindowEnd().toEpochMilli());
        o.put("heatGini", r.getHeatGini());
        o.put("capacityCv", r.getCapacityCv());
        o.put("shardCapacityCv", r.getShardCapacityCv());
        o.put("nodes", r.getNodeCount());
        o.put("totalWriteBytes", r.getTotalWriteBytes());
        o.put("heatState", r.getHeatState().name());
        o.put("capacityState", r.getCapacityState().name());
        ArrayNode hot = o.putArray("hottestSlots");
        for (SlotHeat s : r.getHottestSlots()) {
            hot.addObject().put("slot", s.getSlot()).put("bytes", s.getHeatBytes());
        }
        ArrayNode nodes = o.putArray("nodeFigures");
        for (NodeFigures f : r.getNodes()) {
            ObjectNode x = nodes.addObject();
            x.put("node", f.getNode());
            if (f.getRack() != null) {
                x.put("rack", f.getRack());
            }
            x.put("heatBytes", f.getHeatBytes());
            x.put("usedBytes", f.getUsedBytes());
            x.put("totalBytes", f.getTotalBytes());
            x.put("utilisation", f.getUtilisation());
        }
        return o.toString();
    }

    /**
     * An alert line: {@code type, alertId, cluster, kind, previousState, state, value, threshold,
     * since, time}.
     */
    public static String alert(SkewAlert a) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "alert");
        o.put("alertId", a.getAlertId());
        o.put("cluster", a.getCluster());
        o.put("kind", a.getKind().name());
        o.put("previousState", a.getPreviousState().name());
        o.put("state", a.getState().name());
        o.put("value", a.getValue());
        o.put("threshold", a.getThreshold());
        o.put("since", a.getSince().toEpochMilli());
        o.put("time", a.getEventTime().toEpochMilli());
        return o.toString();
    }

    private static List<ShardUsage> shards(JsonNode n) {
        JsonNode s = n.get("shards");
        if (s == null || s.isNull()) {
            return List.of();
        }
        if (!s.isArray()) {
            throw new IllegalArgumentException("'shards' must be an array");
        }
        List<ShardUsage> out = new ArrayList<>(s.size());
        for (JsonNode x : s) {
            out.add(new ShardUsage((int) integer(x, "slot"), integer(x, "used")));
        }
        return out;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return v.asText();
    }

    private static long integer(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException("'" + field + "' must be an integer");
        }
        if (field.equals("slot") && !v.canConvertToInt()) {
            throw new IllegalArgumentException("'slot' out of range");
        }
        return v.asLong();
    }
}
