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

class CoefficientOfVariationTest {

    @Test
    void equalValuesHaveZeroVariation() {
        assertThat(CoefficientOfVariation.of(new double[] {0.5, 0.5, 0.5})).isZero();
    }

    @Test
    void populationFormDividesByN() {
        // mean 2.5, population variance 1.25
        assertThat(CoefficientOfVariation.of(new double[] {1, 2, 3, 4}))
                .isEqualTo(Math.sqrt(1.25) / 2.5, within(1e-12));
        assertThat(CoefficientOfVariation.of(new long[] {2, 4, 4, 4, 5, 5, 7, 9}))
                .isEqualTo(2.0 / 5.0, within(1e-12));
    }

    @Test
    void emptySingleAndAllZerosAreDefinedAsZero() {
        assertThat(CoefficientOfVariation.of(new double[0])).isZero();
        assertThat(CoefficientOfVariation.of(new double[] {0.7})).isZero();
        assertThat(CoefficientOfVariation.of(new long[] {0, 0})).isZero();
    }

    @Test
    void nanAndNegativeValuesAreRejected() {
        assertThatThrownBy(() -> CoefficientOfVariation.of(new double[] {0.1, Double.NaN}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value 1 is NaN");
        assertThatThrownBy(() -> CoefficientOfVariation.of(new long[] {-4}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value 0 is -4");
    }

    @Property
    void isScaleInvariant(
            @ForAll @Size(min = 1, max = 30) List<@DoubleRange(min = 0.01, max = 1000) Double> list,
            @ForAll @DoubleRange(min = 0.01, max = 100) double factor) {
        double[] x = list.stream().mapToDouble(Double::doubleValue).toArray();
        double[] scaled = list.stream().mapToDouble(v -> v * factor).toArray();
        assertThat(CoefficientOfVariation.of(scaled))
                .isCloseTo(CoefficientOfVariation.of(x), within(1e-9));
    }
}
