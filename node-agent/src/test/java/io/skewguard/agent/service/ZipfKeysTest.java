package io.skewguard.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ZipfKeysTest {

    @Test
    void sharesFollowZipfOverShuffledRanksAndSumToOne() {
        ZipfKeys keys = new ZipfKeys(16, 100_000, 1.0, 7);
        List<Double> shares = new ArrayList<>();
        IntStream.range(0, 16).forEach(slot -> shares.add(keys.share(slot)));
        assertThat(shares.stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        List<Double> sorted = shares.stream().sorted((a, b) -> Double.compare(b, a)).toList();
        // rank r gets 1/r of the hottest's share
        for (int r = 1; r <= 16; r++) {
            assertThat(sorted.get(r - 1)).isCloseTo(sorted.get(0) / r, org.assertj.core.data.Offset.offset(1e-12));
        }
        assertThat(shares).isNotEqualTo(sorted); // the hottest slots are not simply the first ones
    }

    @Test
    void skewZeroIsUniform() {
        ZipfKeys keys = new ZipfKeys(8, 10_000, 0, 1);
        IntStream.range(0, 8).forEach(slot -> assertThat(keys.share(slot)).isCloseTo(1.0 / 8, org.assertj.core.data.Offset.offset(1e-12)));
    }

    @Test
    void drawnKeysAreInTheKeySpaceAndTheSameSeedDrawsTheSameKeys() {
        ZipfKeys a = new ZipfKeys(32, 500, 1.2, 3);
        ZipfKeys b = new ZipfKeys(32, 500, 1.2, 3);
        for (int i = 0; i < 2000; i++) {
            String key = a.next();
            assertThat(b.next()).isEqualTo(key);
            int index = Integer.parseInt(key.substring(1));
            assertThat(index).isBetween(0, 499);
            assertThat(a.share(SlotTable.slotOf(HashRing.hashKey(key), 32))).isPositive();
        }
    }

    @Test
    void aKeySpaceSmallerThanTheSlotsNeverDrawsAnEmptySlot() {
        ZipfKeys keys = new ZipfKeys(64, 3, 1.0, 5);
        for (int i = 0; i < 500; i++) {
            assertThat(keys.next()).isIn("k0000000", "k0000001", "k0000002");
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new ZipfKeys(16, 0, 1, 1)).hasMessageContaining("at least one key");
        assertThatThrownBy(() -> new ZipfKeys(16, 10, -1, 1)).hasMessageContaining("0 or more");
    }
}
