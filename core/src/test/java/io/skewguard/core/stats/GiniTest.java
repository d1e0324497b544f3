package io.skewguard.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.List;

class GiniTest {

    @Test
    void equalValuesHaveNoInequality() {
        assertThat(Gini.of(new double[] {1, 1, 1, 1})).isEqualTo(0.0, within(1e-12));
    }

    @Test
    void oneOfFourHoldingEverythingGivesThreeQuarters() {
        assertThat(Gini.of(new double[] {0, 0, 0, 1})).isEqualTo(0.75, within(1e-12));
        assertThat(Gini.of(new long[] {0, 0, 5, 0})).isEqualTo(0.75, within(1e-12));
    }

    @Test
    void oneToFiveMatchesHandComputedPopulationForm() {
        assertThat(Gini.of(new double[] {5, 3, 1, 4, 2})).isEqualTo(4.0 / 15.0, within(1e-12));
    }

    @Test
    void emptySingleAndAllZerosAreDefinedAsZero() {
        assertThat(Gini.of(new double[0])).isZero();
        assertThat(Gini.of(new double[] {7})).isZero();
        assertThat(Gini.of(new double[] {0, 0, 0})).isZero();
        assertThat(Gini.of(new long[0])).isZero();
    }

    @Test
    void nanAndNegativeValuesAreRejectedWithTheirPosition() {
        assertThatThrownBy(() -> Gini.of(new double[] {1, Double.NaN}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value 1 is NaN");
        assertThatThrownBy(() -> Gini.of(new double[] {-1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value 0 is -1.0");
        assertThatThrownBy(() -> Gini.of(new long[] {3, -2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value 1 is -2");
    }

    @Test
    void inputArrayIsLeftUntouched() {
        double[] values = {3, 1, 2};
        Gini.of(values);
        assertThat(values).containsExactly(3, 1, 2);
    }

    @Property
    void agreesWithMeanAbsoluteDifferenceDefinition(
            @ForAll @Size(min = 1, max = 40) List<@DoubleRange(min = 0, max = 1e6) Double> list) {
        double[] x = list.stream().mapToDouble(Double::doubleValue).toArray();
        double sum = 0;
        double absDiff = 0;
        for (double a : x) {
            sum += a;
            for (double b : x) {
                absDiff += Math.abs(a - b);
            }
        }
        int n = x.length;
        double expected = sum == 0 ? 0 : absDiff / (2.0 * n * sum);
        assertThat(Gini.of(x)).isCloseTo(expected, within(1e-9));
    }

    @Property
    void staysWithinZeroAndOneMinusOneOverN(
            @ForAll @Size(min = 1, max = 60) List<@DoubleRange(min = 0, max = 1e9) Double> list) {
        double[] x = list.stream().mapToDouble(Double::doubleValue).toArray();
        assertThat(Gini.of(x)).isBetween(0.0, 1.0 - 1.0 / x.length + 1e-12);
    }
}
