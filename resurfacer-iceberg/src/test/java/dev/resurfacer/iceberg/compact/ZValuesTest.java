package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The z-value against a Morton encoding written the plainest way, and DuckDB's SQL against Java. */
class ZValuesTest {
  /** Reference: the key as 64 characters of '0'/'1', then interleaving by string indexing. */
  static String referenceMorton(List<String> keyBits) {
    StringBuilder out = new StringBuilder();
    for (int bit = 0; bit < 64; bit++) {
      for (String k : keyBits) {
        out.append(k.charAt(bit));
      }
    }
    return out.toString();
  }

  static String bits(long key) {
    String s = Long.toBinaryString(key);
    return "0".repeat(64 - s.length()) + s;
  }

  /** Reference keys, written independently of ZValues with BigInteger arithmetic. */
  static String referenceKey(Type type, Object v) {
    if (v == null) {
      return "0".repeat(64);
    }
    BigInteger offset = BigInteger.ONE.shiftLeft(63);
    BigInteger unsigned = switch (type.typeId()) {
      case LONG -> BigInteger.valueOf((Long) v).add(offset);
      case INTEGER -> BigInteger.valueOf((Integer) v).add(offset);
      case DATE -> BigInteger.valueOf(((LocalDate) v).toEpochDay()).add(offset);
      case TIMESTAMP ->
        BigInteger.valueOf(
                java.time.Duration.between(LocalDateTime.of(1970, 1, 1, 0, 0), (LocalDateTime) v)
                        .toNanos()
                    / 1000)
            .add(offset);
      case DOUBLE -> {
        double d = (Double) v;
        long raw = Double.doubleToLongBits(d);
        // positives above all negatives; negatives in reverse magnitude
        yield raw >= 0
            ? BigInteger.valueOf(raw).add(offset)
            : offset.subtract(BigInteger.ONE).subtract(BigInteger.valueOf(raw & Long.MAX_VALUE));
      }
      case STRING -> {
        byte[] b = java.util.Arrays.copyOf(((String) v).getBytes(StandardCharsets.UTF_8), 8);
        yield new BigInteger(1, b);
      }
      case BINARY, FIXED -> new BigInteger(1, java.util.Arrays.copyOf((byte[]) v, 8));
      case UUID ->
        new BigInteger(Long.toUnsignedString(((java.util.UUID) v).getMostSignificantBits()));
      default -> throw new IllegalArgumentException(type.toString());
    };
    String s = unsigned.toString(2);
    return "0".repeat(64 - s.length()) + s;
  }

  static final List<Types.NestedField> COLUMNS = List.of(
      Types.NestedField.optional(1, "l", Types.LongType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()));

  static List<Object[]> samples() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {null, null, null, null});
    rows.add(new Object[] {
      Long.MIN_VALUE, "", LocalDateTime.of(1969, 12, 31, 23, 59, 59), Double.NEGATIVE_INFINITY
    });
    rows.add(new Object[] {-1L, "a", LocalDateTime.of(1970, 1, 1, 0, 0), -0.0});
    rows.add(new Object[] {
      0L,
      "abcdefgh-and-much-longer-than-eight-bytes",
      LocalDateTime.of(2026, 11, 29, 12, 0, 0, 123_000),
      0.0
    });
    rows.add(new Object[] {
      42L, "abcdefgh-different-tail", LocalDateTime.of(2262, 4, 11, 0, 0), Double.NaN
    });
    rows.add(new Object[] {
      Long.MAX_VALUE, "é✓", LocalDateTime.of(1900, 1, 1, 0, 0), Double.POSITIVE_INFINITY
    });
    Random rng = new Random(7);
    for (int i = 0; i < 200; i++) {
      rows.add(new Object[] {
        rng.nextLong(),
        Long.toHexString(rng.nextLong()),
        LocalDateTime.of(2000, 1, 1, 0, 0).plusSeconds(rng.nextInt()),
        rng.nextGaussian() * Math.pow(10, rng.nextInt(40) - 20)
      });
    }
    return rows;
  }

  @Test
  void zValueEqualsAPlainMortonEncodingIncludingNullsNegativesNanLongStringsAndTimestamps() {
    for (Object[] row : samples()) {
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < COLUMNS.size(); i++) {
        keys.add(referenceKey(COLUMNS.get(i).type(), row[i]));
        assertThat(bits(ZValues.key(COLUMNS.get(i).type(), row[i])))
            .as("key of %s", row[i])
            .isEqualTo(keys.get(i));
      }
      String z = referenceMorton(keys);
      StringBuilder actual = new StringBuilder();
      for (byte b : ZValues.zValue(COLUMNS, row)) {
        String s = Integer.toBinaryString(b & 0xFF);
        actual.append("0".repeat(8 - s.length())).append(s);
      }
      assertThat(actual.toString()).isEqualTo(z);
    }
  }

  @Test
  void keysPreserveOrder() {
    long[] longs = {Long.MIN_VALUE, -5, -1, 0, 1, 7, Long.MAX_VALUE};
    for (int i = 1; i < longs.length; i++) {
      assertThat(Long.compareUnsigned(
              ZValues.key(Types.LongType.get(), longs[i - 1]),
              ZValues.key(Types.LongType.get(), longs[i])))
          .isNegative();
    }
    double[] doubles = {
      Double.NEGATIVE_INFINITY,
      -1e300,
      -1.5,
      -Double.MIN_VALUE,
      0.0,
      Double.MIN_VALUE,
      2.5,
      1e300,
      Double.POSITIVE_INFINITY,
      Double.NaN
    };
    for (int i = 1; i < doubles.length; i++) {
      assertThat(Long.compareUnsigned(
              ZValues.key(Types.DoubleType.get(), doubles[i - 1]),
              ZValues.key(Types.DoubleType.get(), doubles[i])))
          .as("%s < %s", doubles[i - 1], doubles[i])
          .isNegative();
    }
    assertThat(Long.compareUnsigned(
            ZValues.key(Types.StringType.get(), "abc"), ZValues.key(Types.StringType.get(), "abd")))
        .isNegative();
    assertThat(ZValues.key(Types.StringType.get(), "abcdefgh1"))
        .isEqualTo(ZValues.key(Types.StringType.get(), "abcdefgh2"));
  }

  /** Binary, fixed and uuid: an 8-byte prefix compared unsigned, as Spark z-orders binary. */
  @Test
  void binaryFixedAndUuidKeysAreTheirFirstEightBytesUnsignedAndKeepTheirOrder() {
    List<byte[]> ordered = List.of(
        new byte[0],
        new byte[] {0x00, 0x01},
        new byte[] {0x01},
        new byte[] {0x7f, (byte) 0xff},
        new byte[] {(byte) 0x80},
        new byte[] {(byte) 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x55});
    for (Type t : List.of(Types.BinaryType.get(), Types.FixedType.ofLength(9))) {
      for (int i = 0; i < ordered.size(); i++) {
        byte[] b = ordered.get(i);
        assertThat(bits(ZValues.key(t, b))).isEqualTo(referenceKey(t, b));
        assertThat(ZValues.key(t, java.nio.ByteBuffer.wrap(b))).isEqualTo(ZValues.key(t, b));
        if (i > 0) {
          assertThat(Long.compareUnsigned(ZValues.key(t, ordered.get(i - 1)), ZValues.key(t, b)))
              .as("%s", i)
              .isLessThanOrEqualTo(0);
        }
      }
      // values that share their first 8 bytes tie, as in Spark
      assertThat(ZValues.key(t, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}))
          .isEqualTo(ZValues.key(t, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 10}));
    }
    List<java.util.UUID> uuids = List.of(
        new java.util.UUID(0, 5),
        new java.util.UUID(1, 0),
        new java.util.UUID(Long.MAX_VALUE, 0),
        new java.util.UUID(Long.MIN_VALUE, 0),
        new java.util.UUID(-1, -1));
    for (int i = 0; i < uuids.size(); i++) {
      assertThat(bits(ZValues.key(Types.UUIDType.get(), uuids.get(i))))
          .isEqualTo(referenceKey(Types.UUIDType.get(), uuids.get(i)));
      if (i > 0) {
        assertThat(Long.compareUnsigned(
                ZValues.key(Types.UUIDType.get(), uuids.get(i - 1)),
                ZValues.key(Types.UUIDType.get(), uuids.get(i))))
            .isNegative();
      }
    }
    assertThat(ZValues.unsupported(Types.NestedField.optional(1, "b", Types.BinaryType.get())))
        .isEmpty();
    assertThat(ZValues.unsupported(Types.NestedField.optional(1, "f", Types.FixedType.ofLength(3))))
        .isEmpty();
    assertThat(ZValues.unsupported(Types.NestedField.optional(1, "u", Types.UUIDType.get())))
        .isEmpty();
  }

  /** DuckDB's BLOB and UUID keys are bit for bit the Java ones. */
  @Test
  void duckDbComputesTheSameBinaryAndUuidKeys() throws Exception {
    Random rng = new Random(3);
    List<byte[]> blobs = new ArrayList<>(List.of(
        new byte[0], new byte[] {0}, new byte[] {(byte) 0xff}, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9
        }));
    List<java.util.UUID> uuids = new ArrayList<>(List.of(
        new java.util.UUID(0, 0),
        new java.util.UUID(-1, -1),
        new java.util.UUID(Long.MIN_VALUE, 1),
        new java.util.UUID(Long.MAX_VALUE, -1)));
    for (int i = 0; i < 100; i++) {
      byte[] b = new byte[rng.nextInt(20)];
      rng.nextBytes(b);
      blobs.add(b);
      uuids.add(java.util.UUID.randomUUID());
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      c.createStatement().execute("CREATE TABLE t(id INTEGER, b BLOB, u UUID)");
      try (var ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, CAST(? AS UUID))")) {
        for (int i = 0; i < blobs.size(); i++) {
          ps.setInt(1, i);
          ps.setBytes(2, blobs.get(i));
          ps.setString(3, uuids.get(i).toString());
          ps.addBatch();
        }
        ps.executeBatch();
      }
      String sql =
          "SELECT id, CAST(" + DuckOrdering.key(Types.BinaryType.get(), "b") + " AS VARCHAR), CAST("
              + DuckOrdering.key(Types.UUIDType.get(), "u") + " AS VARCHAR) FROM t ORDER BY id";
      try (ResultSet rs = c.createStatement().executeQuery(sql)) {
        int rows = 0;
        while (rs.next()) {
          int i = rs.getInt(1);
          assertThat(rs.getString(2))
              .as("blob %s", HexFormat.of().formatHex(blobs.get(i)))
              .isEqualTo(Long.toUnsignedString(ZValues.key(Types.BinaryType.get(), blobs.get(i))));
          assertThat(rs.getString(3))
              .as("uuid %s", uuids.get(i))
              .isEqualTo(Long.toUnsignedString(ZValues.key(Types.UUIDType.get(), uuids.get(i))));
          rows++;
        }
        assertThat(rows).isEqualTo(blobs.size());
      }
    }
  }

  /** DuckDB's SQL z-value (keys + 128-bit chunks) must be bit-for-bit the Java one. */
  @Test
  void duckDbComputesTheSameZValue() throws Exception {
    duckDbComputesTheSameZValue(3);
    duckDbComputesTheSameZValue(2);
  }

  private void duckDbComputesTheSameZValue(int n) throws Exception {
    List<Types.NestedField> cols = COLUMNS.subList(0, n);
    ResolvedOrdering.Z z = new ResolvedOrdering.Z(cols);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      c.createStatement().execute("SET TimeZone='UTC'");
      c.createStatement()
          .execute("CREATE TABLE t(c_1 BIGINT, c_2 VARCHAR, c_3 TIMESTAMP, id INTEGER)");
      List<Object[]> rows = samples();
      try (var ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?)")) {
        for (int i = 0; i < rows.size(); i++) {
          ps.setObject(1, rows.get(i)[0]);
          ps.setObject(2, rows.get(i)[1]);
          ps.setObject(
              3,
              rows.get(i)[2] == null
                  ? null
                  : java.sql.Timestamp.valueOf((LocalDateTime) rows.get(i)[2]));
          ps.setInt(4, i);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      List<String> chunks = DuckOrdering.orderBy(z);
      String sql = "WITH src AS (SELECT t.id, " + String.join(", ", DuckOrdering.keyColumns(z))
          + " FROM t) SELECT id, "
          + String.join(
              ", ", chunks.stream().map(ch -> "CAST(" + ch + " AS VARCHAR)").toList())
          + " FROM src ORDER BY id";
      try (ResultSet rs = c.createStatement().executeQuery(sql)) {
        while (rs.next()) {
          Object[] row = java.util.Arrays.copyOf(rows.get(rs.getInt(1)), n);
          byte[] expected = ZValues.zValue(cols, row);
          StringBuilder hex = new StringBuilder();
          for (int i = 0; i < chunks.size(); i++) {
            String h = new BigInteger(rs.getString(i + 2)).toString(16);
            hex.append("0".repeat(16 - h.length())).append(h);
          }
          // 64 x n bits fill the 64-bit chunks exactly
          assertThat(chunks).hasSize(n);
          byte[] padded = java.util.Arrays.copyOf(expected, chunks.size() * 8);
          assertThat(hex.toString())
              .as("row %s", java.util.Arrays.toString(row))
              .isEqualTo(HexFormat.of().formatHex(padded));
        }
      }
    }
  }
}
