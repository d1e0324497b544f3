package io.skewguard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RatioTableTest {

    private static final Map<String, JmhRun.Score> SCORES = Map.of(
            "hashRing@512", new JmhRun.Score(40.0, 2.0, "ns/op", 0.0),
            "keyHashOnly@512", new JmhRun.Score(32.0, 1.0, "ns/op", 0.0));

    @Test
    void aRowGivesBothScoresAndTheirRatioWithTheTarget() {
        String table = new RatioTable(SCORES).ratio("lookup ÷ hash", "hashRing@512", "keyHashOnly@512", "≤ 1.3").markdown();

        assertThat(table).contains("| lookup ÷ hash | `hashRing@512` 40.00 ± 2.00 ns/op, 0.0 B/op "
                + "| `keyHashOnly@512` 32.00 ± 1.00 ns/op, 0.0 B/op | 1.25 | ≤ 1.3 |");
    }

    @Test
    void aScoreTheRunDidNotProduceShowsAsNotMeasuredInsteadOfFailingTheTable() {
        String table = new RatioTable(SCORES).ratio("pick ÷ lookup", "pick@512", "hashRing@512", "≤ 1.5").markdown();

        assertThat(table).contains("`pick@512`: not measured").contains("| – |");
    }

    @Test
    void aBudgetRowDividesTheScoreByTheBudget() {
        String table = new RatioTable(Map.of("plan@512:4096", new JmhRun.Score(10.0, 1.0, "ms/op", 3e6)))
                .againstBudget("plan", "plan@512:4096", 1000, "budget 1,000 ms", "≪ 1").markdown();

        assertThat(table).contains("| budget 1,000 ms | 0.01 | ≪ 1 |");
    }
}
