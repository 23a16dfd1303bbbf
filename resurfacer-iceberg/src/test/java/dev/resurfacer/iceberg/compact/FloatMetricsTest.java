package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * DuckDB's pass over a group's floats is skipped only where a file's metrics prove the column holds
 * no zero of either sign and no NaN: a known NaN count of 0 and both bounds on one side of zero.
 */
class FloatMetricsTest {
  @Test
  void onlyKnownBoundsOnOneSideOfZeroAndNoNaNRuleOutTheCheck() {
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, 0.5, 99.9), 3)).isTrue();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, -9.0, -Double.MIN_VALUE), 3))
        .isTrue();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, 0.0, 1.0), 3))
        .as("+0.0 is a zero")
        .isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, -1.0, -0.0), 3))
        .as("-0.0 is a zero")
        .isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, -1.0, 1.0), 3)).isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(2L, 0.5, 1.0), 3))
        .as("NaN counted")
        .isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(null, 0.5, 1.0), 3))
        .as("NaN count unknown")
        .isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, null, 1.0), 3))
        .as("no lower bound")
        .isFalse();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(file(0L, 0.5, 1.0), 4))
        .as("another column")
        .isFalse();
    DataFile floats = DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/t/f.parquet")
        .withFileSizeInBytes(1)
        .withRecordCount(1)
        .withMetrics(new Metrics(
            1L,
            null,
            null,
            null,
            Map.of(3, 0L),
            Map.of(3, Conversions.toByteBuffer(Types.FloatType.get(), 0.25f)),
            Map.of(3, Conversions.toByteBuffer(Types.FloatType.get(), 2f))))
        .build();
    assertThat(DuckDbFidelity.neitherZeroNorNaN(floats, 3))
        .as("a float column's 4-byte bounds")
        .isTrue();
  }

  private static DataFile file(Long nans, Double lower, Double upper) {
    Map<Integer, Long> nanCounts = nans == null ? Map.of() : Map.of(3, nans);
    Map<Integer, ByteBuffer> lowers = lower == null
        ? Map.of()
        : Map.of(3, Conversions.toByteBuffer(Types.DoubleType.get(), lower));
    Map<Integer, ByteBuffer> uppers = upper == null
        ? Map.of()
        : Map.of(3, Conversions.toByteBuffer(Types.DoubleType.get(), upper));
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/t/d.parquet")
        .withFileSizeInBytes(1)
        .withRecordCount(1)
        .withMetrics(new Metrics(1L, null, null, null, nanCounts, lowers, uppers))
        .build();
  }
}
