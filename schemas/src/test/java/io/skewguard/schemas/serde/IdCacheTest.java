package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class IdCacheTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anIdReadAgainIsTheSameStringWhereverItsBytesLie() {
    IdCache cache = new IdCache(64, 255);
    byte[] a = utf8("xxnode-7yy");
    byte[] b = utf8("node-7");
    String first = cache.get(a, 2, 6);
    assertThat(first).isEqualTo("node-7");
    assertThat(cache.get(b, 0, b.length)).isSameAs(first);
    assertThat(cache.get(a, 2, 5)).isEqualTo("node-"); // a prefix is another id
    assertThat(cache.get(a, 0, 0)).isEmpty();
  }

  @Test
  void everyIdDecodesAsUtf8DecodesItInvalidBytesIncluded() {
    SplittableRandom random = new SplittableRandom(11);
    IdCache cache = new IdCache(256, 255);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = new byte[random.nextInt(12)];
      for (int k = 0; k < bytes.length; k++) {
        bytes[k] = (byte) (random.nextInt(3) == 0 ? random.nextInt(256) : 'a' + random.nextInt(3));
      }
      assertThat(cache.get(bytes, 0, bytes.length)).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  @Test
  void itKeepsNoMoreThanItsCapacityNorAnyIdOverTheByteLimit() {
    IdCache cache = new IdCache(100, 16); // rounded up to 128 entries
    for (int i = 0; i < 10_000; i++) {
      byte[] id = utf8("id-" + i);
      assertThat(cache.get(id, 0, id.length)).isEqualTo("id-" + i);
    }
    assertThat(cache.size()).isLessThanOrEqualTo(128).isGreaterThan(0);

    IdCache small = new IdCache(8, 4);
    byte[] longer = utf8("node-1");
    String once = small.get(longer, 0, longer.length);
    assertThat(small.get(longer, 0, longer.length)).isEqualTo(once).isNotSameAs(once);
    assertThat(small.size()).isZero();
  }

  @Test
  void aCapacityBelowOneIsRefused() {
    assertThatThrownBy(() -> new IdCache(0, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IdCache(10, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void threadsSharingItAlwaysReadTheRightId() throws Exception {
    IdCache cache = new IdCache(64, 255); // smaller than the ids: entries are overwritten while read
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> wrong = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        wrong.add(pool.submit(() -> {
          SplittableRandom random = new SplittableRandom(seed);
          int bad = 0;
          for (int i = 0; i < 200_000; i++) {
            String id = "node-" + random.nextInt(500);
            byte[] bytes = utf8(id);
            bad += cache.get(bytes, 0, bytes.length).equals(id) ? 0 : 1;
          }
          return bad;
        }));
      }
      for (Future<Integer> f : wrong) {
        assertThat(f.get()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
