package io.skewguard.agent.service;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Keys drawn so that the slots' heat follows a Zipf law: the slot of rank r (1 = hottest) is drawn
 * with probability proportional to {@code 1 / r^skew}, and within a slot one of its keys uniformly.
 * Which slots are hot is a seeded shuffle, so hot slots are spread over the ring, not neighbours.
 *
 * <p>The simulator draws slots from a scenario's heat ({@code SlotHeat}); the node agent cannot
 * depend on the simulator, so its load generator uses this one-parameter heat instead.
 *
 * <p><b>Key names.</b> The key space is {@code k0000000 … k<keySpace−1>}; each name is hashed once,
 * lazily, into its slot's list ({@code slot = xxh3(key) mod S}, as a router computes it), so a
 * slot's keys are known without hashing the whole space up front. A slot that holds none of the
 * names is never drawn. Not thread safe: one drawing thread.
 */
public final class ZipfKeys {

    private final int slotCount;
    private final int keySpace;
    private final double[] cdf;
    private final List<List<String>> bySlot;
    private final SplittableRandom random;
    private int hashed;

    /**
     * @param slotCount S, a power of two
     * @param keySpace number of distinct keys, at least 1
     * @param skew Zipf exponent, 0 (uniform) or more
     * @param seed seed of the shuffle of the slots' ranks and of the draws
     */
    public ZipfKeys(int slotCount, int keySpace, double skew, long seed) {
        this.slotCount = SlotTable.requireSlotCount(slotCount);
        if (keySpace < 1) {
            throw new IllegalArgumentException("key space must hold at least one key, was " + keySpace);
        }
        if (!(skew >= 0) || Double.isInfinite(skew)) {
            throw new IllegalArgumentException("Zipf exponent must be 0 or more, was " + skew);
        }
        this.keySpace = keySpace;
        this.random = new SplittableRandom(seed);
        int[] rankOf = shuffledRanks(slotCount, random.split());
        boolean[] holdsKeys = slotsHoldingKeys(slotCount, keySpace);
        double[] share = new double[slotCount];
        for (int slot = 0; slot < slotCount; slot++) {
            share[slot] = holdsKeys[slot] ? 1.0 / Math.pow(rankOf[slot] + 1, skew) : 0.0;
        }
        this.cdf = cdf(share);
        this.bySlot = new ArrayList<>(slotCount);
        for (int slot = 0; slot < slotCount; slot++) {
            bySlot.add(new ArrayList<>());
        }
    }

    /** The share of draws that falls on {@code slot}. */
    public double share(int slot) {
        return cdf[slot] - (slot == 0 ? 0 : cdf[slot - 1]);
    }

    /** The next key: a slot by its heat, then one of the slot's keys. */
    public String next() {
        int slot = Arrays.binarySearch(cdf, random.nextDouble());
        slot = Math.min(slotCount - 1, slot >= 0 ? slot + 1 : -slot - 1);
        while (share(slot) == 0) { // a draw of exactly a boundary, onto an empty slot
            slot = (slot + 1) % slotCount;
        }
        List<String> keys = bySlot.get(slot);
        // draw among the slot's names seen so far and any not hashed yet: hash on until the pick is known
        int expected = (int) Math.max(1, Math.round((double) keySpace / slotCount));
        int index = random.nextInt(expected);
        while (keys.size() <= index && hashed < keySpace) {
            String name = name(hashed++);
            bySlot.get(SlotTable.slotOf(HashRing.hashKey(name), slotCount)).add(name);
        }
        return keys.get(Math.min(index, keys.size() - 1));
    }

    /** Name of key {@code i}. */
    static String name(int i) {
        return String.format("k%07d", i);
    }

    private static boolean[] slotsHoldingKeys(int slotCount, int keySpace) {
        // a small key space may leave slots empty; a large one fills them all (checked cheaply first)
        boolean[] holds = new boolean[slotCount];
        int left = slotCount;
        for (int i = 0; i < keySpace && left > 0; i++) {
            int slot = SlotTable.slotOf(HashRing.hashKey(name(i)), slotCount);
            if (!holds[slot]) {
                holds[slot] = true;
                left--;
            }
        }
        return holds;
    }

    private static int[] shuffledRanks(int n, SplittableRandom random) {
        int[] ranks = new int[n];
        for (int i = 0; i < n; i++) {
            ranks[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = ranks[i];
            ranks[i] = ranks[j];
            ranks[j] = t;
        }
        return ranks;
    }

    private static double[] cdf(double[] shares) {
        double[] cdf = new double[shares.length];
        double sum = 0;
        for (int i = 0; i < shares.length; i++) {
            sum += shares[i];
            cdf[i] = sum;
        }
        for (int i = 0; i < cdf.length; i++) {
            cdf[i] /= sum;
        }
        cdf[cdf.length - 1] = 1.0;
        return cdf;
    }
}
