package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.zorder.ZKeys;
import dev.resurfacer.zorder.ZKeysSql;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DuckDB's SQL z-value key of a double, bit for bit against {@link ZKeys#ofDouble}, over the odd values and random bit patterns. */
class DuckDbDoubleKeyTest {
  @Test
  void theSqlKeyIsTheJavaKeyForEveryKindOfDoubleAndFloat() throws Exception {
    List<Double> values = new ArrayList<>(List.of(
        Double.NaN,
        -0.0,
        0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        -Double.MIN_NORMAL,
        Math.nextDown(Double.MIN_NORMAL),
        Math.nextUp(Double.MIN_NORMAL),
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        Math.nextDown(1.0),
        Math.nextUp(1.0),
        2.0,
        Math.nextDown(2.0),
        0.5,
        1.0 / 3,
        -1.0 / 3,
        1e300,
        1e-300,
        4.9e-324 * 3,
        Math.scalb(1.0, 1023),
        Math.scalb(1.0, -1022),
        Math.scalb(1.0, -1074),
        (double) Float.MIN_VALUE,
        (double) Float.MAX_VALUE,
        (double) Float.MIN_NORMAL,
        Double.longBitsToDouble(0xfff8000000000001L),
        Double.longBitsToDouble(0x7ff0000000000001L)));
    SplittableRandom random = new SplittableRandom(13);
    for (int i = 0; i < 1000; i++) {
      values.add(Double.longBitsToDouble(random.nextLong()));
      values.add((double) Float.intBitsToFloat(random.nextInt()));
    }
    for (int e = -1074; e <= 1023; e++) {
      values.add(Math.scalb(1.0, e));
      values.add(Math.nextDown(Math.scalb(1.0, e)));
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      c.createStatement().execute("CREATE TABLE t(i INTEGER, d DOUBLE, f FLOAT)");
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
        for (int i = 0; i < values.size(); i++) {
          ps.setInt(1, i);
          ps.setDouble(2, values.get(i));
          ps.setFloat(3, (float) (double) values.get(i));
          ps.addBatch();
        }
        ps.setInt(1, values.size());
        ps.setNull(2, java.sql.Types.DOUBLE);
        ps.setNull(3, java.sql.Types.FLOAT);
        ps.addBatch();
        ps.executeBatch();
      }
      try (ResultSet r = c.createStatement()
          .executeQuery("SELECT i, CAST(" + ZKeysSql.ofDouble("d") + " AS VARCHAR), CAST("
              + ZKeysSql.ofDouble("CAST(f AS DOUBLE)") + " AS VARCHAR) FROM t ORDER BY i")) {
        int rows = 0;
        while (r.next()) {
          int i = r.getInt(1);
          rows++;
          if (i == values.size()) {
            assertThat(r.getString(2)).as("null").isNull();
            assertThat(r.getString(3)).as("null").isNull();
            continue;
          }
          double d = values.get(i);
          assertThat(new BigInteger(r.getString(2)).longValue())
              .as("double %s (bits %x)", d, Double.doubleToRawLongBits(d))
              .isEqualTo(ZKeys.ofDouble(d));
          float f = (float) d;
          assertThat(new BigInteger(r.getString(3)).longValue())
              .as("float %s", f)
              .isEqualTo(ZKeys.ofDouble(f));
        }
        assertThat(rows).isEqualTo(values.size() + 1);
      }
    }
  }
}
