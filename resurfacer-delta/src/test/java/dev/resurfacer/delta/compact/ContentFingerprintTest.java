package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.delta.kernel.VectorBatch;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The digest verification compares: a changed value changes it, whatever the value (the nulls,
 * zeros, NaN payloads, strings and decimals a weak hash confuses), and the same rows give the same
 * digest in any order, in any split, read as string or as bytes.
 */
class ContentFingerprintTest {
  @Test
  void everyChangedValueChangesTheDigestAndOrderOrSplitDoesNot() {
    assertDiffer(LongType.LONG, null, 0x5bd1e995L);
    assertDiffer(LongType.LONG, null, 0L);
    assertDiffer(LongType.LONG, 1L, 2L);
    assertDiffer(DoubleType.DOUBLE, -0.0, 0.0);
    assertDiffer(DoubleType.DOUBLE, Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L));
    assertDiffer(StringType.STRING, "Aa", "BB");
    assertDiffer(StringType.STRING, "", null);
    assertDiffer(
        StringType.STRING, "https://example.com/p/12345?s=1", "https://example.com/p/12345?s=2");
    assertDiffer(StringType.STRING, "abcdefgh" + "ijklmnop", "ijklmnop" + "abcdefgh");
    assertDiffer(new DecimalType(12, 2), new BigDecimal("1.00"), new BigDecimal("1.01"));
    assertDiffer(
        new DecimalType(38, 5),
        new BigDecimal("123456789012345678901.00001"),
        new BigDecimal("123456789012345678901.00002"));

    List<Object> rows = Arrays.asList(1L, 2L, null, 3L, 3L);
    List<Object> shuffled = Arrays.asList(3L, null, 1L, 3L, 2L);
    assertThat(digest(LongType.LONG, rows)).isEqualTo(digest(LongType.LONG, shuffled));
    RowDigest split =
        digest(LongType.LONG, rows.subList(0, 2)).plus(digest(LongType.LONG, rows.subList(2, 5)));
    assertThat(split).isEqualTo(digest(LongType.LONG, rows));
    assertThat(digest(LongType.LONG, Arrays.asList(3L, 3L)))
        .as("a duplicated row counts")
        .isNotEqualTo(digest(LongType.LONG, List.of()));

    List<Object> strings = Arrays.asList("", "é✓", "https://example.com/p/1?s=2", null);
    List<Object> bytes = strings.stream()
        .map(s -> s == null ? null : (Object) ((String) s).getBytes(StandardCharsets.UTF_8))
        .toList();
    assertThat(digest(StringType.STRING, strings))
        .as("a string read as bytes")
        .isEqualTo(digest(BinaryType.BINARY, bytes));
  }

  private static void assertDiffer(DataType type, Object a, Object b) {
    assertThat(digest(type, Arrays.asList(a, a)))
        .as("%s vs %s", a, b)
        .isNotEqualTo(digest(type, Arrays.asList(a, b)));
  }

  private static RowDigest digest(DataType type, List<Object> values) {
    ContentFingerprint print = new ContentFingerprint(1);
    print.add(
        new VectorBatch(
            new StructType().add("c", type),
            new ColumnVector[] {vector(type, values)},
            values.size()),
        Optional.empty(),
        List.of("c"));
    return print.value();
  }

  private static ColumnVector vector(DataType type, List<Object> values) {
    return new ColumnVector() {
      @Override
      public DataType getDataType() {
        return type;
      }

      @Override
      public int getSize() {
        return values.size();
      }

      @Override
      public void close() {}

      @Override
      public boolean isNullAt(int r) {
        return values.get(r) == null;
      }

      @Override
      public long getLong(int r) {
        return (Long) values.get(r);
      }

      @Override
      public double getDouble(int r) {
        return (Double) values.get(r);
      }

      @Override
      public String getString(int r) {
        return (String) values.get(r);
      }

      @Override
      public byte[] getBinary(int r) {
        return (byte[]) values.get(r);
      }

      @Override
      public BigDecimal getDecimal(int r) {
        return (BigDecimal) values.get(r);
      }
    };
  }
}
