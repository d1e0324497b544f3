package io.skewguard.core.ring;

import net.openhft.hashing.Access;
import net.openhft.hashing.LongHashFunction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Consistent-hash ring with virtual nodes (docs/design.md §3.1).
 *
 * <p><b>Points.</b> A node with ring weight {@code w} gets {@code max(1, round(vnodesPerUnit * w))}
 * points (150 per unit by default); point {@code i} of node {@code id} sits at
 * {@code xxh3(id + "#" + i)}, read as an unsigned 64-bit position on the circle. A key at position
 * {@code h} belongs to the owner of the first point at or after {@code h} clockwise, wrapping from the
 * top of the circle to point 0.
 *
 * <p><b>Lookup structure.</b> Sorted primitive arrays: {@code long[] points} (unsigned ascending) and
 * {@code int[] owner} (node index, see {@link NodeIndex}), plus a prefix index {@code int[] bucket}
 * of {@code 2^b} entries, where {@code b = clamp(ceil(log2 P) + 1, 5, 21)} for {@code P} points (18 bits
 * at 512 nodes × 150 points), one per value of a position's top {@code b} bits. A bucket that holds no
 * point sends every position in it to the same owner, so its entry is that owner's index and a lookup
 * there reads one cache line and is done (about three buckets in four, with at least two buckets per
 * point). A bucket holding points has {@code ~i} for its first point {@code i}; the lookup scans on from
 * it (on average about one point) and reads the owner. That is O(1) expected time and one cache line,
 * or three, instead of the {@code log2 P} dependent loads of a binary search; the profile of a lookup
 * is XXH3 of the key followed by these loads, so fewer dependent loads is what makes it cheaper. No
 * boxing, no allocation per lookup.
 *
 * <p><b>Changes.</b> Immutable: {@link #withNode(Node)} and {@link #withoutNode(String)} rebuild the
 * arrays (O(P log P)) and return a new ring. Node indexes are stable across changes: a node that leaves
 * keeps its index in {@link #nodes()} (it just owns no points), a node that joins is appended.
 * Thread-safe.
 */
public final class HashRing {

    /** Virtual points per unit of ring weight (docs/design.md §3.1). */
    public static final int DEFAULT_VNODES_PER_UNIT = 150;

    private static final LongHashFunction XX3 = LongHashFunction.xx3();
    private static final Access<CharSequence> CHARS = Access.toNativeCharSequence();
    private static final int MIN_INDEX_BITS = 5;
    private static final int MAX_INDEX_BITS = 21;

    private final NodeIndex nodes;
    private final int vnodesPerUnit;
    /** By node index; null when the node is not on the ring. */
    private final Node[] members;
    private final int memberCount;
    /** By node index; -1 when the rack is unknown or the node is not on the ring. */
    private final int[] rackId;
    private final int rackCount;
    private final long[] points;
    private final int[] owner;
    /** By the top bits of a position: the owner's index (&ge; 0) if no point lies in that bucket, else {@code ~} its first point. */
    private final int[] bucket;
    private final int bucketShift;

    private HashRing(NodeIndex nodes, Map<String, Node> memberById, int vnodesPerUnit) {
        this.nodes = nodes;
        this.vnodesPerUnit = vnodesPerUnit;
        this.members = new Node[nodes.size()];
        this.rackId = new int[nodes.size()];
        Arrays.fill(rackId, -1);
        Map<String, Integer> racks = new HashMap<>();
        int total = 0;
        for (Node node : memberById.values()) {
            int index = nodes.require(node.id());
            members[index] = node;
            if (node.rack() != null) {
                rackId[index] = racks.computeIfAbsent(node.rack(), r -> racks.size());
            }
            total += pointsOf(node, vnodesPerUnit);
        }
        this.memberCount = memberById.size();
        this.rackCount = racks.size();

        long[] unsortedPoints = new long[total];
        int[] unsortedOwner = new int[total];
        int p = 0;
        for (Node node : memberById.values()) {
            int index = nodes.indexOf(node.id());
            int count = pointsOf(node, vnodesPerUnit);
            for (int i = 0; i < count; i++) {
                unsortedPoints[p] = XX3.hashChars(node.id() + "#" + i);
                unsortedOwner[p] = index;
                p++;
            }
        }
        // sort by unsigned position; equal positions (astronomically rare) by node id, so the result
        // does not depend on the order nodes were added in
        Integer[] order = new Integer[total];
        for (int i = 0; i < total; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(unsortedPoints[a], unsortedPoints[b]);
            return c != 0 ? c : nodes.id(unsortedOwner[a]).compareTo(nodes.id(unsortedOwner[b]));
        });
        this.points = new long[total];
        this.owner = new int[total];
        for (int i = 0; i < total; i++) {
            points[i] = unsortedPoints[order[i]];
            owner[i] = unsortedOwner[order[i]];
        }

        // one bit more than the points need: at least two buckets per point, so most buckets hold none
        int bits = Math.max(MIN_INDEX_BITS, Math.min(MAX_INDEX_BITS, 65 - Long.numberOfLeadingZeros(Math.max(1, total - 1))));
        this.bucketShift = 64 - bits;
        this.bucket = new int[1 << bits];
        int i = 0;
        for (int t = 0; t < 1 << bits; t++) {
            while (i < total && (points[i] >>> bucketShift) < t) {
                i++;
            }
            boolean holdsPoints = i < total && (points[i] >>> bucketShift) == t;
            // an empty bucket's positions all belong to the first point after it (wrapping to point 0)
            bucket[t] = holdsPoints ? ~i : total == 0 ? 0 : owner[i == total ? 0 : i];
        }
    }

    private static int pointsOf(Node node, int vnodesPerUnit) {
        return (int) Math.max(1, Math.round(vnodesPerUnit * node.ringWeight()));
    }

    /** A ring of {@code nodes} with 150 points per unit of ring weight; indexes follow the given order. */
    public static HashRing of(Collection<Node> nodes) {
        return of(nodes, DEFAULT_VNODES_PER_UNIT);
    }

    /** A ring of {@code nodes} with {@code vnodesPerUnit} points per unit of ring weight. */
    public static HashRing of(Collection<Node> nodes, int vnodesPerUnit) {
        return of(NodeIndex.empty(), nodes, vnodesPerUnit);
    }

    /**
     * A ring of {@code nodes} whose node indexes extend {@code index}: nodes already in it keep their
     * index, new ones are appended in the given order.
     */
    public static HashRing of(NodeIndex index, Collection<Node> nodes, int vnodesPerUnit) {
        if (vnodesPerUnit < 1) {
            throw new IllegalArgumentException("vnodes per unit must be at least 1, but is " + vnodesPerUnit);
        }
        Map<String, Node> byId = new LinkedHashMap<>();
        NodeIndex grown = index;
        for (Node node : nodes) {
            Objects.requireNonNull(node, "node");
            if (byId.put(node.id(), node) != null) {
                throw new IllegalArgumentException("duplicate node id '" + node.id() + "'");
            }
            grown = grown.with(node.id());
        }
        return new HashRing(grown, byId, vnodesPerUnit);
    }

    /** A ring of equally weighted nodes on unknown racks. */
    public static HashRing ofIds(String... ids) {
        List<Node> nodes = new ArrayList<>(ids.length);
        for (String id : ids) {
            nodes.add(Node.of(id));
        }
        return of(nodes);
    }

    /** A new ring with {@code node} added, or replacing the member with the same id (new rack or weight). */
    public HashRing withNode(Node node) {
        Map<String, Node> byId = memberMap();
        byId.put(node.id(), node);
        return new HashRing(nodes.with(node.id()), byId, vnodesPerUnit);
    }

    /** A new ring without the node {@code id}; its index stays reserved in {@link #nodes()}. */
    public HashRing withoutNode(String id) {
        Map<String, Node> byId = memberMap();
        if (byId.remove(id) == null) {
            throw new IllegalArgumentException("node '" + id + "' is not on the ring");
        }
        return new HashRing(nodes, byId, vnodesPerUnit);
    }

    private Map<String, Node> memberMap() {
        Map<String, Node> byId = new LinkedHashMap<>();
        for (Node member : members) {
            if (member != null) {
                byId.put(member.id(), member);
            }
        }
        return byId;
    }

    // ---------------------------------------------------------------- key hashing

    /** {@code xxh3} of the key's bytes. */
    public static long hashKey(byte[] key) {
        return XX3.hashBytes(key);
    }

    /**
     * {@code xxh3} of the key's UTF-16 chars (native byte order), without allocating. Note this is not
     * the hash of the key's UTF-8 bytes: a cluster must hash its keys one way everywhere.
     */
    public static long hashKey(CharSequence key) {
        if (key instanceof String s) {
            return XX3.hashChars(s);
        }
        return XX3.hash(key, CHARS, 0, 2L * key.length());
    }

    /** {@code xxh3} of a numeric key (its 8 bytes). */
    public static long hashKey(long key) {
        return XX3.hashLong(key);
    }

    // ---------------------------------------------------------------- lookup

    /**
     * The node index owning ring position {@code hash}: the owner of the first point at or after it,
     * clockwise with wrap-around. Expected O(1) (one prefix bucket, on average at most one point);
     * allocation-free.
     *
     * @throws IllegalStateException when the ring has no nodes
     */
    public int lookup(long hash) {
        if (points.length == 0) {
            throw new IllegalStateException("the ring has no nodes");
        }
        int entry = bucket[(int) (hash >>> bucketShift)];
        return entry >= 0 ? entry : owner[scanFrom(~entry, hash)];
    }

    /** {@link #lookup(long)} of {@link #hashKey(CharSequence)}; allocation-free. */
    public int lookup(CharSequence key) {
        return lookup(hashKey(key));
    }

    /** {@link #lookup(long)} of {@link #hashKey(byte[])}; allocation-free. */
    public int lookup(byte[] key) {
        return lookup(hashKey(key));
    }

    /** The id of the node owning {@code key}; allocation-free (returns the stored id). */
    public String lookupId(CharSequence key) {
        return nodes.id(lookup(key));
    }

    /** Index into the point arrays of the first point at or after {@code hash}, wrapping to 0. */
    int pointIndexAtOrAfter(long hash) {
        if (points.length == 0) {
            throw new IllegalStateException("the ring has no nodes");
        }
        // the first bucket at or after the position's that holds a point: its first point, or point 0
        for (int t = (int) (hash >>> bucketShift); t < bucket.length; t++) {
            if (bucket[t] < 0) {
                return scanFrom(~bucket[t], hash);
            }
        }
        return 0;
    }

    /** The first point at or after {@code hash} from point {@code i} on (the points are sorted), wrapping to 0. */
    private int scanFrom(int i, long hash) {
        while (i < points.length && Long.compareUnsigned(points[i], hash) < 0) {
            i++;
        }
        return i == points.length ? 0 : i;
    }

    // ---------------------------------------------------------------- candidate sets

    /**
     * The candidate set met walking clockwise from ring position {@code position}: up to {@code m}
     * distinct nodes ({@code min(m, members)}), the owner of {@code position} first (the anchor).
     *
     * <p>Rack rule: the first walk takes a node only if its rack is not yet in the set (nodes on an
     * unknown rack never conflict). If the ring has fewer racks than {@code m}, that walk ends with one
     * node per rack, and a second walk from the same point fills the set with the remaining distinct
     * nodes in clockwise order, so every rack is represented before any rack appears twice. With no
     * racks known this is simply the first {@code m} distinct nodes clockwise.
     *
     * <p>Cost: O(m) expected steps per walk on a well-mixed ring; the first walk may go once around the
     * ring (O(P)) when some rack is rare. Allocates the result and a scratch array: meant for building
     * slot tables, not for the per-write path.
     */
    public CandidateSet candidates(long position, int m) {
        if (m < 1) {
            throw new IllegalArgumentException("a candidate set needs m >= 1, but m is " + m);
        }
        int size = Math.min(m, memberCount);
        if (size == 0) {
            throw new IllegalStateException("the ring has no nodes");
        }
        int[] chosen = new int[size];
        boolean[] inSet = new boolean[nodes.size()];
        boolean[] rackInSet = new boolean[rackCount];
        int unknownRackLeft = 0;
        for (int node = 0; node < members.length; node++) {
            if (members[node] != null && rackId[node] < 0) {
                unknownRackLeft++;
            }
        }
        int count = 0;
        int racksUsed = 0;
        int start = pointIndexAtOrAfter(position);
        int total = points.length;
        for (int step = 0; step < total && count < size; step++) {
            if (racksUsed == rackCount && unknownRackLeft == 0) {
                break; // no node left that this walk could take
            }
            int node = owner[(start + step) % total];
            if (inSet[node]) {
                continue;
            }
            int rack = rackId[node];
            if (rack >= 0) {
                if (rackInSet[rack]) {
                    continue;
                }
                rackInSet[rack] = true;
                racksUsed++;
            } else {
                unknownRackLeft--;
            }
            inSet[node] = true;
            chosen[count++] = node;
        }
        for (int step = 0; step < total && count < size; step++) {
            int node = owner[(start + step) % total];
            if (!inSet[node]) {
                inSet[node] = true;
                chosen[count++] = node;
            }
        }
        return new CandidateSet(chosen);
    }

    /**
     * The node that takes the place of {@code leaving} in {@code set} (a node drained, lost or removed):
     * walking clockwise from ring position {@code position} (the slot's point), the first member that
     * is not in the set, is {@code eligible} (indexed by node index; a live member), and whose rack no
     * remaining candidate of the set uses (an unknown rack never conflicts). Only when no such node
     * exists is the rack rule dropped: then the first eligible member not in the set clockwise.
     *
     * <p>Pure and deterministic: the same ring, set and eligibility give the same node whatever else
     * happened before. Cost: at most two walks around the ring (O(P)).
     *
     * @param leaving node index leaving the set (need not be on the ring any more)
     * @param eligible by node index: true for nodes that may take writes; indexes past its end are not eligible
     * @return the node index of the replacement, or -1 when no eligible member is left outside the set
     */
    public int replacement(long position, CandidateSet set, int leaving, boolean[] eligible) {
        if (points.length == 0) {
            return -1;
        }
        boolean[] rackTaken = new boolean[rackCount];
        for (int i = 0; i < set.size(); i++) {
            int member = set.node(i);
            if (member != leaving && member < rackId.length && rackId[member] >= 0) {
                rackTaken[rackId[member]] = true;
            }
        }
        int start = pointIndexAtOrAfter(position);
        int total = points.length;
        int relaxed = -1;
        for (int step = 0; step < total; step++) {
            int node = owner[(start + step) % total];
            if (node == leaving || set.contains(node) || node >= eligible.length || !eligible[node]) {
                continue;
            }
            if (rackId[node] < 0 || !rackTaken[rackId[node]]) {
                return node;
            }
            if (relaxed < 0) {
                relaxed = node;
            }
        }
        return relaxed;
    }

    /**
     * The nodes that widen a slot past {@code taken} (its candidate set, docs/design.md §3.5): up to
     * {@code count} distinct members met walking clockwise from ring position {@code position} that
     * are not in {@code taken} and are {@code eligible} (by node index; live members), in the order
     * they are taken.
     *
     * <p>Rack rule, the candidate set's generalised: every rack is used as evenly as it can be. The
     * walk goes round the ring in passes; pass {@code p} takes a node only if its rack is used at most
     * {@code p} times so far by {@code taken} and the nodes already taken (an unknown rack never
     * conflicts). With no racks known this is simply the next {@code count} distinct eligible nodes
     * clockwise.
     *
     * <p>Prefix-stable: the extension of {@code k} nodes is the first {@code k} of the extension of
     * any {@code k' > k} under the same arguments, so a slot that widens keeps the nodes it had.
     * Fewer than {@code count} nodes come back when fewer are eligible outside {@code taken}.
     * Cost: a few walks round the ring (O(P) each); allocates its result and scratch arrays.
     *
     * @param taken node indexes already holding the slot (need not be on the ring)
     * @param eligible by node index; indexes past its end are not eligible
     */
    public int[] extension(long position, int[] taken, int count, boolean[] eligible) {
        if (count < 0) {
            throw new IllegalArgumentException("an extension of " + count + " nodes: count must not be negative");
        }
        if (points.length == 0 || count == 0) {
            return new int[0];
        }
        boolean[] inSet = new boolean[nodes.size()];
        int[] rackUse = new int[rackCount];
        for (int node : taken) {
            if (node >= 0 && node < inSet.length) {
                inSet[node] = true;
                if (rackId[node] >= 0) {
                    rackUse[rackId[node]]++;
                }
            }
        }
        int available = 0;
        int highestUse = 0;
        for (int node = 0; node < members.length; node++) {
            if (members[node] != null && !inSet[node] && node < eligible.length && eligible[node]) {
                available++;
            }
        }
        for (int use : rackUse) {
            highestUse = Math.max(highestUse, use);
        }
        int size = Math.min(count, available);
        int[] chosen = new int[size];
        int filled = 0;
        int start = pointIndexAtOrAfter(position);
        int total = points.length;
        // a pass past the most used rack's count admits every rack: the walk then ends within it
        for (int pass = 0; filled < size && pass <= highestUse + size; pass++) {
            for (int step = 0; step < total && filled < size; step++) {
                int node = owner[(start + step) % total];
                if (inSet[node] || node >= eligible.length || !eligible[node]) {
                    continue;
                }
                int rack = rackId[node];
                if (rack >= 0) {
                    if (rackUse[rack] > pass) {
                        continue;
                    }
                    rackUse[rack]++;
                }
                inSet[node] = true;
                chosen[filled++] = node;
            }
        }
        return filled == size ? chosen : Arrays.copyOf(chosen, filled);
    }

    // ---------------------------------------------------------------- accessors

    /** The node-id table; indexes returned by {@link #lookup(long)} point into it. */
    public NodeIndex nodes() {
        return nodes;
    }

    /** Virtual points per unit of ring weight. */
    public int vnodesPerUnit() {
        return vnodesPerUnit;
    }

    /** Number of nodes on the ring. */
    public int memberCount() {
        return memberCount;
    }

    /** True when the node at {@code index} is on the ring. */
    public boolean isMember(int index) {
        return index >= 0 && index < members.length && members[index] != null;
    }

    /** The member at {@code index}; an {@link IllegalArgumentException} when it is not on the ring. */
    public Node member(int index) {
        if (!isMember(index)) {
            throw new IllegalArgumentException("node index " + index + " is not on the ring");
        }
        return members[index];
    }

    /** The nodes on the ring, in index order. */
    public List<Node> members() {
        List<Node> list = new ArrayList<>(memberCount);
        for (Node member : members) {
            if (member != null) {
                list.add(member);
            }
        }
        return List.copyOf(list);
    }

    /** The rack of the node at {@code index}, or null when unknown or not on the ring. */
    public String rack(int index) {
        return isMember(index) ? members[index].rack() : null;
    }

    /** Number of distinct known racks among the members. */
    public int rackCount() {
        return rackCount;
    }

    /** Total number of virtual points. */
    public int pointCount() {
        return points.length;
    }

    /** Position of point {@code i} (points ascend as unsigned numbers). */
    public long point(int i) {
        return points[i];
    }

    /** Node index owning point {@code i}. */
    public int ownerOfPoint(int i) {
        return owner[i];
    }

    @Override
    public String toString() {
        return "HashRing[" + memberCount + " nodes, " + points.length + " points, " + rackCount + " racks]";
    }
}
