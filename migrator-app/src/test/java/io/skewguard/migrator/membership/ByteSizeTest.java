package io.skewguard.migrator.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {

    @Test
    void decimalUnitsArePowersOfTenAndBinaryUnitsPowersOfTwo() {
        assertThat(ByteSize.parse("100TB")).isEqualTo(100_000_000_000_000L);
        assertThat(ByteSize.parse("512GiB")).isEqualTo(512L << 30);
        assertThat(ByteSize.parse("1.5 tb")).isEqualTo(1_500_000_000_000L);
        assertThat(ByteSize.parse("2000")).isEqualTo(2000L);
    }

    @Test
    void malformedZeroAndHugeSizesAreRefusedWithTheFormsAllowed() {
        assertThatThrownBy(() -> ByteSize.parse("100XB")).hasMessage("'100XB' is not a size; write it like 100TB, 512GiB or 2000000000000 (bytes)");
        assertThatThrownBy(() -> ByteSize.parse("-1TB")).hasMessageContaining("is not a size");
        assertThatThrownBy(() -> ByteSize.parse("0TB")).hasMessage("'0TB' is not a size above 0 bytes");
        assertThatThrownBy(() -> ByteSize.parse("9000EB")).hasMessage("'9000EB' is too large a size");
    }

    @Test
    void sizesAreWrittenInDecimalUnits() {
        assertThat(ByteSize.format(412_000_000_000L)).isEqualTo("412.0 GB");
        assertThat(ByteSize.format(512)).isEqualTo("512 B");
        assertThat(ByteSize.format(1_000_000_000_000L)).isEqualTo("1.0 TB");
    }
}
