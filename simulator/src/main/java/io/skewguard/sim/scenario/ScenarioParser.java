package io.skewguard.sim.scenario;

import io.skewguard.migrator.MigratorSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.runtime.settings.Validator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a scenario file: one {@code key = value} per line, {@code #} starts a comment, blank lines are
 * ignored. Every key is known (a typo is an error, not a silent default); node groups are
 * {@code nodes.<group>.<field>}, events are {@code event.<name>.<field>}. Sizes take decimal or binary
 * units ({@code 100TB}, {@code 1.5PiB}, {@code 200MB}); durations {@code ms s m h d w}
 * ({@code 42d}, {@code 2m}). Every error names the file, the line and the reason
 * ({@link ScenarioException}). The format is described in {@code docs/simulator.md}.
 */
public final class ScenarioParser {

    private static final Set<String> TOP_KEYS = Set.of(
            "name", "description", "seed", "duration", "step", "slots", "candidates", "vnodesPerUnit", "fill",
            "fill.heat", "fill.zipfExponent", "fill.prefixSlots", "fill.prefixShare",
            "heat", "heat.zipfExponent", "heat.prefixSlots", "heat.prefixShare",
            "writes.perDay", "writes.growthPerDay", "writes.diurnalAmplitude", "writes.noise",
            "policies", "repair.from", "probeKeys",
            "ceph.interval", "ceph.overload", "ceph.maxChange", "ceph.maxNodes",
            "skewguard.heatThreshold", "skewguard.capacityThreshold", "skewguard.hysteresis", "skewguard.cooldown",
            "skewguard.repairTarget", "skewguard.migrationTargetCv", "skewguard.overshoot",
            "skewguard.maxParallel", "skewguard.maxBytesPerSec", "skewguard.nodeExpiry", "skewguard.followUp",
            "skewguard.maintenanceFactor");
    private static final Set<String> NODE_FIELDS = Set.of(
            "count", "prefix", "first", "capacity", "capacitySpread", "racks", "rackPrefix", "ringWeight");
    private static final Set<String> EVENT_FIELDS = Set.of(
            "at", "type", "node", "capacity", "rack", "ringWeight", "slot", "factor", "keys", "cancelAt");
    private static final Pattern SIZE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([KMGTPE]i?B|B)?");

    private final String file;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    private record Entry(String value, int line) {}

    private ScenarioParser(String file) {
        this.file = file;
    }

    /** Parses {@code text}, read from {@code file} (used in error messages only). */
    public static Scenario parse(String file, String text) {
        return new ScenarioParser(file).read(text);
    }

    private Scenario read(String text) {
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            readLine(lines[i], i + 1);
        }
        return build();
    }

    private void readLine(String raw, int line) {
        String content = stripComment(raw).strip();
        if (content.isEmpty()) {
            return;
        }
        int eq = content.indexOf('=');
        if (eq <= 0) {
            throw error(line, "expected 'key = value', found '" + content + "'");
        }
        String key = content.substring(0, eq).strip();
        String value = content.substring(eq + 1).strip();
        checkKnown(key, line);
        if (value.isEmpty()) {
            throw error(line, "key '" + key + "' has no value");
        }
        Entry previous = entries.put(key, new Entry(value, line));
        if (previous != null) {
            throw error(line, "key '" + key + "' is set twice (first on line " + previous.line() + ")");
        }
    }

    private static String stripComment(String raw) {
        int hash = raw.indexOf('#');
        return hash < 0 ? raw : raw.substring(0, hash);
    }

    private void checkKnown(String key, int line) {
        if (TOP_KEYS.contains(key)) {
            return;
        }
        String[] parts = key.split("\\.", -1);
        if (parts.length == 3 && parts[0].equals("nodes")) {
            if (!parts[1].matches("[A-Za-z0-9_-]+")) {
                throw error(line, "node group name '" + parts[1] + "' must be letters, digits, '_' or '-'");
            }
            if (!NODE_FIELDS.contains(parts[2])) {
                throw error(line, "unknown key '" + key + "': a node group has " + sorted(NODE_FIELDS));
            }
            return;
        }
        if (parts.length == 3 && parts[0].equals("event")) {
            if (!parts[1].matches("[A-Za-z0-9_-]+")) {
                throw error(line, "event name '" + parts[1] + "' must be letters, digits, '_' or '-'");
            }
            if (!EVENT_FIELDS.contains(parts[2])) {
                throw error(line, "unknown key '" + key + "': an event has " + sorted(EVENT_FIELDS));
            }
            return;
        }
        throw error(line, "unknown key '" + key + "'");
    }

    private static String sorted(Set<String> names) {
        return String.join(", ", new java.util.TreeSet<>(names));
    }

    // ---------------------------------------------------------------- building

    private Scenario build() {
        String name = required("name");
        String description = optional("description", "");
        long seed = longValue("seed", 1);
        long duration = duration("duration", -1);
        if (duration <= 0) {
            throw error(lineOf("duration"), "duration must be positive");
        }
        long step = duration("step", 120_000L);
        if (step <= 0 || step > duration) {
            throw error(lineOf("step"), "step must be positive and at most the duration");
        }
        int slots = intValue("slots", 256);
        if (slots < 1 || slots > 4096 || Integer.bitCount(slots) != 1) {
            throw error(lineOf("slots"), "slots must be a power of two between 1 and 4096, was " + slots);
        }
        int candidates = intValue("candidates", 8);
        if (candidates < 1) {
            throw error(lineOf("candidates"), "candidates must be at least 1, was " + candidates);
        }
        int vnodes = intValue("vnodesPerUnit", 150);
        if (vnodes < 1) {
            throw error(lineOf("vnodesPerUnit"), "vnodesPerUnit must be at least 1, was " + vnodes);
        }
        List<NodeSpec> nodes = nodeGroups();
        double fill = fraction("fill", 0.5, false);
        HeatSpec heat = heat("heat");
        HeatSpec fillHeat = entries.containsKey("fill.heat") ? heat("fill.heat") : null;
        WriteSpec writes = new WriteSpec(
                size("writes.perDay", -1),
                nonNegative("writes.growthPerDay", 0.0),
                fraction("writes.diurnalAmplitude", 0.0, true),
                nonNegative("writes.noise", 0.0));
        if (writes.bytesPerDay() < 0) {
            throw error(0, "missing key 'writes.perDay'");
        }
        List<String> policies = policies();
        long repairFrom = duration("repair.from", 0);
        if (repairFrom > duration) {
            throw error(lineOf("repair.from"), "repair.from is after the end of the scenario");
        }
        CephSettings cephDefaults = CephSettings.defaults();
        CephSettings ceph = new CephSettings(
                duration("ceph.interval", cephDefaults.intervalMillis()),
                positive("ceph.overload", cephDefaults.overload()),
                positive("ceph.maxChange", cephDefaults.maxChange()),
                intValue("ceph.maxNodes", cephDefaults.maxNodes()));
        if (ceph.intervalMillis() <= 0 || ceph.maxNodes() < 1) {
            throw error(lineOf(ceph.maxNodes() < 1 ? "ceph.maxNodes" : "ceph.interval"),
                    "ceph.interval must be positive and ceph.maxNodes at least 1");
        }
        SkewGuardSettings d = SkewGuardSettings.defaults();
        SkewGuardSettings skewguard = new SkewGuardSettings(
                fraction("skewguard.heatThreshold", d.heatThreshold(), false),
                positive("skewguard.capacityThreshold", d.capacityThreshold()),
                fraction("skewguard.hysteresis", d.hysteresis(), false),
                duration("skewguard.cooldown", d.cooldownMillis()),
                fraction("skewguard.repairTarget", d.repairTarget(), false),
                nonNegative("skewguard.migrationTargetCv", d.migrationTargetCv()),
                fraction("skewguard.overshoot", d.overshoot(), true),
                intValue("skewguard.maxParallel", d.maxParallel()),
                size("skewguard.maxBytesPerSec", d.maxBytesPerSec()),
                duration("skewguard.nodeExpiry", d.nodeExpiryMillis()),
                duration("skewguard.followUp", d.followUpMillis()),
                maintenanceFactor(d.maintenanceFactor()));
        if (skewguard.nodeExpiryMillis() < 1) {
            throw error(lineOf("skewguard.nodeExpiry"), "skewguard.nodeExpiry must be positive");
        }
        if (skewguard.maxParallel() < 1) {
            throw error(lineOf("skewguard.maxParallel"), "skewguard.maxParallel must be at least 1");
        }
        if (skewguard.maxBytesPerSec() < 1) {
            throw error(lineOf("skewguard.maxBytesPerSec"), "skewguard.maxBytesPerSec must be positive");
        }
        List<ScenarioEvent> events = events(nodes, duration, slots);
        int probeKeys = intValue("probeKeys", 20_000);
        if (probeKeys < 0) {
            throw error(lineOf("probeKeys"), "probeKeys must not be negative");
        }
        return new Scenario(name, description, file, seed, duration, step, slots, candidates, vnodes, nodes, fill,
                fillHeat, heat, writes, policies, repairFrom, ceph, skewguard, events, probeKeys);
    }

    private List<NodeSpec> nodeGroups() {
        Map<String, Integer> groupLine = new TreeMap<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            if (e.getKey().startsWith("nodes.")) {
                groupLine.merge(e.getKey().split("\\.")[1], e.getValue().line(), Math::min);
            }
        }
        if (groupLine.isEmpty()) {
            throw error(0, "no nodes: add a node group (nodes.<group>.count, nodes.<group>.capacity)");
        }
        List<Map.Entry<String, Integer>> groups = new ArrayList<>(groupLine.entrySet());
        groups.sort(Map.Entry.comparingByValue());
        List<NodeSpec> nodes = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Map.Entry<String, Integer> group : groups) {
            String g = "nodes." + group.getKey() + ".";
            int count = intValue(g + "count", -1);
            if (count < 1) {
                throw error(count == -1 ? group.getValue() : lineOf(g + "count"),
                        "node group '" + group.getKey() + "' needs count >= 1");
            }
            String prefix = optional(g + "prefix", group.getKey() + "-");
            int first = intValue(g + "first", 1);
            long capacity = size(g + "capacity", -1);
            if (!entries.containsKey(g + "capacity")) {
                throw error(group.getValue(), "node group '" + group.getKey() + "' needs a capacity");
            }
            if (capacity <= 0) {
                throw error(lineOf(g + "capacity"), "capacity of node group '" + group.getKey() + "' must be positive");
            }
            double spread = fraction(g + "capacitySpread", 0.0, true);
            if (spread >= 1) {
                throw error(lineOf(g + "capacitySpread"), "capacitySpread must be below 1");
            }
            int racks = intValue(g + "racks", 0);
            if (racks < 0) {
                throw error(lineOf(g + "racks"), "racks must not be negative");
            }
            String rackPrefix = optional(g + "rackPrefix", "rack-");
            double ringWeight = positive(g + "ringWeight", 1.0);
            for (int i = 0; i < count; i++) {
                String id = prefix + (first + i);
                if (!ids.add(id)) {
                    throw error(lineOf(g + "count"), "node id '" + id + "' is made by two node groups");
                }
                // capacities spread evenly over [c(1 − spread), c(1 + spread)] in id order
                double position = count == 1 ? 0 : (2.0 * i / (count - 1) - 1);
                long cap = Math.round(capacity * (1 + spread * position));
                String rack = racks == 0 ? null : rackPrefix + (i % racks + 1);
                nodes.add(new NodeSpec(id, cap, rack, ringWeight));
            }
        }
        return nodes;
    }

    /** {@code heat} or {@code fill.heat} with its parameters ({@code heat.zipfExponent} or {@code fill.zipfExponent}, ...). */
    private HeatSpec heat(String key) {
        String kind = optional(key, "uniform");
        String p = key.equals("heat") ? "heat." : "fill.";
        return switch (kind) {
            case "uniform" -> new HeatSpec.Uniform();
            case "zipf" -> new HeatSpec.Zipf(positive(p + "zipfExponent", 1.0));
            case "hotPrefix" -> {
                double slotsShare = fraction(p + "prefixSlots", 0.1, false);
                double heatShare = fraction(p + "prefixShare", 0.5, false);
                if (slotsShare <= 0 || slotsShare >= 1) {
                    throw error(lineOf(p + "prefixSlots"), p + "prefixSlots must be in (0, 1)");
                }
                yield new HeatSpec.HotPrefix(slotsShare, heatShare);
            }
            default -> throw error(lineOf(key), "unknown " + key + " '" + kind + "': uniform, zipf or hotPrefix");
        };
    }

    private List<String> policies() {
        String value = optional("policies", String.join(", ", Scenario.DEFAULT_POLICIES));
        List<String> policies = new ArrayList<>();
        for (String p : value.split(",")) {
            String name = p.strip();
            if (!Scenario.POLICIES.contains(name)) {
                throw error(lineOf("policies"), "unknown policy '" + name + "': " + String.join(", ", Scenario.POLICIES));
            }
            if (!policies.contains(name)) {
                policies.add(name);
            }
        }
        return policies;
    }

    private List<ScenarioEvent> events(List<NodeSpec> initial, long duration, int slots) {
        Map<String, Integer> eventLine = new LinkedHashMap<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            if (e.getKey().startsWith("event.")) {
                eventLine.merge(e.getKey().split("\\.")[1], e.getValue().line(), Math::min);
            }
        }
        List<ScenarioEvent> events = new ArrayList<>();
        for (Map.Entry<String, Integer> ev : eventLine.entrySet()) {
            String name = ev.getKey();
            String p = "event." + name + ".";
            if (!entries.containsKey(p + "at")) {
                throw error(ev.getValue(), "event '" + name + "' needs 'at'");
            }
            long at = duration(p + "at", 0);
            if (at > duration) {
                throw error(lineOf(p + "at"), "event '" + name + "' is after the end of the scenario");
            }
            String type = entries.containsKey(p + "type") ? entries.get(p + "type").value() : null;
            if (type == null) {
                throw error(ev.getValue(), "event '" + name + "' needs a type: join, loss, drain or hotspot");
            }
            ScenarioEvent event = switch (type) {
                case "join" -> {
                    String id = requiredEventField(p, "node", ev.getValue());
                    long cap = size(p + "capacity", -1);
                    if (!entries.containsKey(p + "capacity")) {
                        throw error(ev.getValue(), "join event '" + name + "' needs a capacity");
                    }
                    if (cap <= 0) {
                        throw error(lineOf(p + "capacity"), "capacity of joining node '" + id + "' must be positive");
                    }
                    String rack = optional(p + "rack", null);
                    yield new ScenarioEvent.Join(name, at, new NodeSpec(id, cap, rack, positive(p + "ringWeight", 1.0)));
                }
                case "loss" -> new ScenarioEvent.Loss(name, at, requiredEventField(p, "node", ev.getValue()));
                case "drain" -> {
                    String id = requiredEventField(p, "node", ev.getValue());
                    long cancelAt = -1;
                    if (entries.containsKey(p + "cancelAt")) {
                        cancelAt = duration(p + "cancelAt", -1);
                        if (cancelAt <= at || cancelAt > duration) {
                            throw error(lineOf(p + "cancelAt"), "cancelAt of drain event '" + name
                                    + "' must be after its 'at' and not after the end of the scenario");
                        }
                    }
                    yield new ScenarioEvent.Drain(name, at, id, cancelAt);
                }
                case "hotspot" -> {
                    String slot = optional(p + "slot", "hottest");
                    ScenarioEvent.HotSlot hot;
                    if (slot.equals("hottest")) {
                        hot = ScenarioEvent.HotSlot.HOTTEST;
                    } else {
                        int s = intValue(p + "slot", -1);
                        if (s < 0 || s >= slots) {
                            throw error(lineOf(p + "slot"), "slot " + slot + " is outside [0, " + slots + ")");
                        }
                        hot = new ScenarioEvent.HotSlot(s);
                    }
                    int keys = intValue(p + "keys", ScenarioEvent.HotSpot.DEFAULT_KEYS);
                    if (keys < 1 || keys > ScenarioEvent.HotSpot.MAX_KEYS) {
                        throw error(lineOf(p + "keys"), "keys of hot spot '" + name + "' is " + keys
                                + ": it must be in [1, " + ScenarioEvent.HotSpot.MAX_KEYS + "]");
                    }
                    yield new ScenarioEvent.HotSpot(name, at, hot, positive(p + "factor", 3.0), keys);
                }
                default -> throw error(lineOf(p + "type"), "unknown event type '" + type + "': join, loss, drain or hotspot");
            };
            if (!(event instanceof ScenarioEvent.Drain) && entries.containsKey(p + "cancelAt")) {
                throw error(lineOf(p + "cancelAt"), "cancelAt belongs to a drain event; event '" + name + "' is a " + type);
            }
            events.add(event);
        }
        events.sort(Comparator.comparingLong(ScenarioEvent::atMillis));
        checkNodes(initial, events);
        return events;
    }

    /**
     * Joins must bring new ids; losses and drains must name a node that is in the cluster at that time;
     * a node is drained once (unless the drain was cancelled before), and some node must stay to take
     * a drained node's data.
     */
    private void checkNodes(List<NodeSpec> initial, List<ScenarioEvent> events) {
        Set<String> present = new HashSet<>();
        Set<String> ever = new HashSet<>();
        // node -> end of its drain (Long.MAX_VALUE: never cancelled)
        Map<String, Long> draining = new HashMap<>();
        for (NodeSpec n : initial) {
            present.add(n.id());
            ever.add(n.id());
        }
        for (ScenarioEvent e : events) {
            String p = "event." + e.name() + ".";
            if (e instanceof ScenarioEvent.Join j) {
                if (!ever.add(j.node().id())) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' joins node '" + j.node().id()
                            + "', which is already in the cluster");
                }
                present.add(j.node().id());
            } else if (e instanceof ScenarioEvent.Loss l) {
                if (!present.remove(l.node())) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' names unknown node '" + l.node()
                            + "'" + (ever.contains(l.node()) ? " (already lost by then)" : ""));
                }
                if (present.isEmpty()) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' would leave the cluster without nodes");
                }
            } else if (e instanceof ScenarioEvent.Drain d) {
                if (!present.contains(d.node())) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' drains unknown node '" + d.node()
                            + "'" + (ever.contains(d.node()) ? " (lost by then)" : ""));
                }
                Long until = draining.get(d.node());
                if (until != null && until > d.atMillis()) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' drains node '" + d.node()
                            + "', which is already being drained by then");
                }
                draining.put(d.node(), d.cancelled() ? d.cancelAtMillis() : Long.MAX_VALUE);
                long staying = present.stream()
                        .filter(n -> draining.getOrDefault(n, Long.MIN_VALUE) <= d.atMillis()).count();
                if (staying == 0) {
                    throw error(lineOf(p + "node"), "event '" + e.name() + "' would leave no node to take the data of '"
                            + d.node() + "'");
                }
            }
        }
    }

    private String requiredEventField(String prefix, String field, int eventLine) {
        Entry e = entries.get(prefix + field);
        if (e == null) {
            throw error(eventLine, "event '" + prefix.split("\\.")[1] + "' needs '" + field + "'");
        }
        return e.value();
    }

    // ---------------------------------------------------------------- values

    private int lineOf(String key) {
        Entry e = entries.get(key);
        return e == null ? 0 : e.line();
    }

    private String required(String key) {
        Entry e = entries.get(key);
        if (e == null) {
            throw error(0, "missing key '" + key + "'");
        }
        return e.value();
    }

    private String optional(String key, String fallback) {
        Entry e = entries.get(key);
        return e == null ? fallback : e.value();
    }

    private long longValue(String key, long fallback) {
        Entry e = entries.get(key);
        if (e == null) {
            return fallback;
        }
        try {
            return Long.parseLong(e.value());
        } catch (NumberFormatException ex) {
            throw error(e.line(), key + " must be a whole number, was '" + e.value() + "'");
        }
    }

    private int intValue(String key, int fallback) {
        long value = longValue(key, fallback);
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
            throw error(lineOf(key), key + " is out of range");
        }
        return (int) value;
    }

    private double doubleValue(String key, double fallback) {
        Entry e = entries.get(key);
        if (e == null) {
            return fallback;
        }
        try {
            double v = Double.parseDouble(e.value());
            if (!Double.isFinite(v)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException ex) {
            throw error(e.line(), key + " must be a number, was '" + e.value() + "'");
        }
    }

    private double positive(String key, double fallback) {
        double v = doubleValue(key, fallback);
        if (!(v > 0)) {
            throw error(lineOf(key), key + " must be positive, was " + v);
        }
        return v;
    }

    /** The migrator's maintenance factor, held to the migrator's own rule for its {@code maintenance-factor}. */
    private double maintenanceFactor(double fallback) {
        String key = "skewguard.maintenanceFactor";
        double v = doubleValue(key, fallback);
        Validator rule = MigratorSettings.MODEL.setting(MigratorSettings.MAINTENANCE_FACTOR).validator();
        if (!rule.test().test(v)) {
            throw error(lineOf(key), key + " must be " + rule.allowed() + ", was " + v);
        }
        return v;
    }

    private double nonNegative(String key, double fallback) {
        double v = doubleValue(key, fallback);
        if (v < 0) {
            throw error(lineOf(key), key + " must not be negative, was " + v);
        }
        return v;
    }

    private double fraction(String key, double fallback, boolean zeroAllowed) {
        double v = doubleValue(key, fallback);
        if (v < 0 || v > 1 || (!zeroAllowed && v == 0)) {
            throw error(lineOf(key), key + " must be in " + (zeroAllowed ? "[0, 1]" : "(0, 1]") + ", was " + v);
        }
        return v;
    }

    /** A size in bytes: {@code 100TB} (10^12), {@code 100TiB} (2^40), plain digits are bytes. */
    private long size(String key, long fallback) {
        Entry e = entries.get(key);
        if (e == null) {
            return fallback;
        }
        String value = e.value();
        if (value.startsWith("-")) {
            throw error(e.line(), "negative size " + value + " for " + key);
        }
        Matcher m = SIZE.matcher(value);
        if (!m.matches()) {
            throw error(e.line(), key + " must be a size like 100TB or 512GiB, was '" + value + "'");
        }
        double number = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2);
        double factor = switch (unit.toUpperCase(Locale.ROOT)) {
            case "B" -> 1;
            case "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            case "PB" -> 1e15;
            case "EB" -> 1e18;
            case "KIB" -> 0x1p10;
            case "MIB" -> 0x1p20;
            case "GIB" -> 0x1p30;
            case "TIB" -> 0x1p40;
            case "PIB" -> 0x1p50;
            default -> 0x1p60;
        };
        double bytes = number * factor;
        if (bytes >= Long.MAX_VALUE / 4.0) {
            throw error(e.line(), key + " is too large: " + value);
        }
        return Math.round(bytes);
    }

    /** A duration in milliseconds, in the one duration syntax of every setting ({@link Durations}: {@code 42d}, {@code 1.5h}, {@code 2w}, {@code PT1M}). */
    private long duration(String key, long fallback) {
        Entry e = entries.get(key);
        if (e == null) {
            return fallback;
        }
        if (e.value().startsWith("-")) {
            throw error(e.line(), "negative duration " + e.value() + " for " + key);
        }
        try {
            return Durations.parse(e.value()).toMillis();
        } catch (IllegalArgumentException bad) {
            throw error(e.line(), key + ": " + bad.getMessage());
        }
    }

    private ScenarioException error(int line, String reason) {
        return new ScenarioException(file, line, reason);
    }
}
