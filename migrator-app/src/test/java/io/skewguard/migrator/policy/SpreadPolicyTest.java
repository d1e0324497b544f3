package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.slots.SpreadUpdate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The spread rule on its own (spread at 0.75 for 2 minutes to 0.5, at most 24 nodes, narrow under 0.4 for
 * 30 minutes): 48 nodes of 100 units (total 4800), slot 7's own writers are 8 of
 * them (800: a capacity share of 1/6), spread nodes of 100 each.
 */
class SpreadPolicyTest {

    private static final double TOTAL = 4800;
    private static final long MINUTE = 60_000;
    private final SpreadPolicy policy = new SpreadPolicy(new SpreadRule(true, 0.75, 2 * MINUTE, 0.5, 24, 0.4, 30 * MINUTE));
    private final List<Integer> asked = new ArrayList<>();

    /** Slot 7 takes {@code share} of 10 000 heat; the rest is spread evenly over the 40 cold slots 100 to 139. */
    private SpreadPolicy.Decision report(SpreadState state, long time, double share, int spread) {
        long hot = Math.round(10_000 * share);
        List<SlotLoad> slots = new ArrayList<>();
        for (int cold = 100; cold < 140; cold++) {
            slots.add(new SlotLoad(cold, (10_000 - hot) / 40, 800, 0, 800));
        }
        slots.add(new SlotLoad(7, hot, 800, spread, 800 + 100.0 * spread));
        return policy.decide(state, time, 10_000, TOTAL, slots, slot -> {
            asked.add(slot);
            double[] caps = new double[40];
            java.util.Arrays.fill(caps, 100);
            return caps;
        });
    }

    @Test
    void aSlotAtOrAboveSpreadAtForTheHoldSpreadsOverTheFewestNodesThatBringItToTheTarget() {
        // 27.8 % of the writes on a 1/6 capacity share: ρ 1.67; ρ ≤ 0.5 needs a capacity share of 0.556, 26.7 nodes
        SpreadPolicy.Decision first = report(SpreadState.empty(), 0, 0.278, 0);
        assertThat(first.updates()).isEmpty();
        SpreadPolicy.Decision mid = report(first.state(), MINUTE, 0.278, 0);
        assertThat(mid.updates()).isEmpty();
        SpreadPolicy.Decision due = report(mid.state(), 2 * MINUTE, 0.278, 0);
        assertThat(due.updates()).extracting(SpreadUpdate::slot, SpreadUpdate::extras).containsExactly(org.assertj.core.groups.Tuple.tuple(7, 19));
        assertThat(due.updates().get(0).reason()).isEqualTo("spread over 19 more nodes: slot 7 takes 27.8 % of the writes, 1.67 × the "
                + "capacity share of the nodes writing it (at or above 0.75 for 2m); ρ 0.49 with them");
        assertThat(asked).containsExactly(7);
    }

    @Test
    void aBurstShorterThanTheHoldSpreadsNothing() {
        SpreadState s = report(SpreadState.empty(), 0, 0.4, 0).state();
        s = report(s, MINUTE, 0.4, 0).state();
        SpreadPolicy.Decision cooled = report(s, 2 * MINUTE, 0.1, 0);
        assertThat(cooled.updates()).isEmpty();
        assertThat(cooled.state().slots()).isEmpty();
        // hot again: the hold starts over
        s = report(cooled.state(), 3 * MINUTE, 0.4, 0).state();
        assertThat(report(s, 4 * MINUTE, 0.4, 0).updates()).isEmpty();
    }

    @Test
    void aSpreadSlotThatGetsHotterWidensAndOneThatStaysSpreadAsItIsChangesNothing() {
        // spread over 19 nodes (27 writers, capacity share 0.5625), ρ 0.49: nothing, however long
        SpreadState s = SpreadState.empty();
        for (int m = 0; m < 600; m += 2) {
            SpreadPolicy.Decision d = report(s, m * MINUTE, 0.278, 19);
            assertThat(d.updates()).isEmpty();
            s = d.state();
        }
        // twice the writes: ρ 0.99 over its 27 writers, so it widens once the hold is over, to the cap of 24
        s = report(s, 600 * MINUTE, 0.556, 19).state();
        SpreadPolicy.Decision d = report(s, 602 * MINUTE, 0.556, 19);
        assertThat(d.updates()).singleElement().satisfies(u -> {
            assertThat(u.extras()).isEqualTo(24);
            assertThat(u.reason()).startsWith("widened from 19 to 24 spread nodes: slot 7 takes 55.6 %");
        });
        // at the cap and still hot: nothing more, no decision on every report, and the nodes it could
        // spread over are not asked for (working them out takes the ring)
        s = d.state();
        asked.clear();
        for (int m = 604; m < 700; m += 2) {
            SpreadPolicy.Decision again = report(s, m * MINUTE, 0.556, 24);
            assertThat(again.updates()).isEmpty();
            s = again.state();
        }
        assertThat(asked).isEmpty();
    }

    @Test
    void aSpreadSlotNarrowsOnlyAfterStayingUnderNarrowAtForTheNarrowHold() {
        // 5 % on its own writers' 1/6: ρ 0.3 < 0.4
        SpreadState s = SpreadState.empty();
        for (int m = 0; m < 30; m += 2) {
            SpreadPolicy.Decision d = report(s, m * MINUTE, 0.05, 19);
            assertThat(d.updates()).as("minute %d", m).isEmpty();
            s = d.state();
        }
        SpreadPolicy.Decision narrow = report(s, 30 * MINUTE, 0.05, 19);
        assertThat(narrow.updates()).singleElement().satisfies(u -> {
            assertThat(u.extras()).isZero();
            assertThat(u.reason()).isEqualTo("narrowed: slot 7 takes 5.0 % of the writes, 0.30 × its own writers' capacity share "
                    + "(under 0.40 for 30m); new writes go to its candidates, its 19 spread nodes keep what they received (held)");
        });
        assertThat(narrow.state().slots()).isEmpty();
    }

    @Test
    void aSlotBetweenTheNarrowAndTheSpreadLevelsDoesNotSpreadAndNarrowBackAndForth() {
        // load swinging every 10 minutes between ρ 0.45 and 1.2 of its own writers' share, for two days
        SpreadState s = SpreadState.empty();
        int spread = 0;
        int changes = 0;
        for (long m = 0; m < 2 * 24 * 60; m += 2) {
            double share = (m / 10) % 2 == 0 ? 0.075 : 0.2;
            SpreadPolicy.Decision d = report(s, m * MINUTE, share, spread);
            for (SpreadUpdate u : d.updates()) {
                spread = u.extras();
                changes++;
            }
            s = d.state();
        }
        // it spread once (ρ 1.2 for the hold) and never narrowed: 0.45 is not under 0.4
        assertThat(changes).isEqualTo(1);
        assertThat(spread).isPositive();
    }

    @Test
    void withSpreadingOffNoSlotSpreadsButASpreadSlotStillNarrows() {
        SpreadPolicy off = new SpreadPolicy(new SpreadRule(false, 0.75, 120_000, 0.5, 24, 0.4, 1_800_000));
        List<SlotLoad> hot = List.of(new SlotLoad(7, 500, 800, 0, 800));
        SpreadState s = SpreadState.empty();
        for (int m = 0; m < 10; m++) {
            SpreadPolicy.Decision d = off.decide(s, m * MINUTE, 1000, TOTAL, hot, slot -> new double[] {100});
            assertThat(d.updates()).isEmpty();
            s = d.state();
        }
        List<SlotLoad> cold = List.of(new SlotLoad(7, 10, 800, 3, 1100));
        SpreadPolicy.Decision d = off.decide(SpreadState.empty(), 0, 1000, TOTAL, cold, slot -> new double[0]);
        d = off.decide(d.state(), 30 * MINUTE, 1000, TOTAL, cold, slot -> new double[0]);
        assertThat(d.updates()).extracting(SpreadUpdate::extras).containsExactly(0);
    }

    @Test
    void aSpreadTakesNoMoreNodesThanTheExtensionHas() {
        List<SlotLoad> hot = List.of(new SlotLoad(7, 900, 800, 0, 800));
        SpreadPolicy.Decision d = policy.decide(SpreadState.empty(), 0, 1000, TOTAL, hot, slot -> new double[] {100, 100, 100});
        d = policy.decide(d.state(), 2 * MINUTE, 1000, TOTAL, hot, slot -> new double[] {100, 100, 100});
        assertThat(d.updates()).extracting(SpreadUpdate::extras).containsExactly(3);
    }

    @Test
    void reportsWithoutHeatOrWritersWithoutCapacityDecideNothing() {
        SpreadState watched = report(SpreadState.empty(), 0, 0.4, 0).state();
        SpreadPolicy.Decision none = policy.decide(watched, MINUTE, 0, TOTAL, List.of(), slot -> new double[0]);
        assertThat(none.updates()).isEmpty();
        assertThat(none.state()).isEqualTo(watched);
        SpreadPolicy.Decision unknown = policy.decide(SpreadState.empty(), 0, 1000, TOTAL, List.of(new SlotLoad(7, 900, 0, 0, 0)),
                slot -> new double[0]);
        assertThat(unknown.state().slots()).isEmpty();
    }

    @Test
    void rulesThatWouldNarrowASlotJustSpreadAreRefused() {
        assertThatThrownBy(() -> new SpreadRule(true, 0.75, 0, 0.5, 24, 0.5, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("narrow-at must be at least 0 and below spread-target");
        assertThatThrownBy(() -> new SpreadRule(true, 0.75, 0, 0.8, 24, 0.4, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spread-target");
        assertThatThrownBy(() -> new SpreadRule(true, 0.75, 0, 0.5, 0, 0.4, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
