package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.zorder.ZKeys;
import dev.resurfacer.zorder.ZKeysSql;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DuckDB's z-value ORDER BY terms, chunk by chunk and bit for bit against {@link ZKeys#interleave}, for one to five keys. */
class DuckDbZValueTest {
  @Test
  void theSqlChunksAreTheJavaInterleavingForEveryKeyCount() throws Exception {
    SplittableRandom random = new SplittableRandom(29);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement()) {
      for (int n = 1; n <= 5; n++) {
        List<long[]> rows = new ArrayList<>();
        for (long edge : new long[] {
          0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1, 0x5555555555555555L, 0xAAAAAAAAAAAAAAAAL
        }) {
          long[] keys = new long[n];
          java.util.Arrays.fill(keys, edge);
          rows.add(keys);
        }
        for (int bit = 0; bit < 64; bit++) {
          for (int j = 0; j < n; j++) {
            long[] keys = new long[n];
            keys[j] = 1L << bit;
            rows.add(keys);
          }
        }
        for (int i = 0; i < 2000; i++) {
          long[] keys = new long[n];
          for (int j = 0; j < n; j++) {
            keys[j] = random.nextLong();
          }
          rows.add(keys);
        }
        StringBuilder columns = new StringBuilder("i INTEGER");
        for (int j = 0; j < n; j++) {
          columns.append(", __k").append(j).append(" UBIGINT");
        }
        st.execute("CREATE OR REPLACE TABLE src(" + columns + ")");
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO src VALUES (?" + ", CAST(? AS UBIGINT)".repeat(n) + ")")) {
          for (int i = 0; i < rows.size(); i++) {
            ps.setInt(1, i);
            for (int j = 0; j < n; j++) {
              ps.setString(2 + j, Long.toUnsignedString(rows.get(i)[j]));
            }
            ps.addBatch();
          }
          ps.executeBatch();
        }
        List<String> terms = ZKeysSql.interleavedChunks("src.__k", n);
        assertThat(terms).hasSize(n);
        StringBuilder select = new StringBuilder("SELECT i");
        terms.forEach(t -> select.append(", CAST(").append(t).append(" AS VARCHAR)"));
        try (ResultSet r = st.executeQuery(select + " FROM src ORDER BY i")) {
          int seen = 0;
          while (r.next()) {
            long[] keys = rows.get(r.getInt(1));
            ByteBuffer expected = ByteBuffer.wrap(ZKeys.interleave(keys));
            for (int chunk = 0; chunk < n; chunk++) {
              assertThat(new BigInteger(r.getString(2 + chunk)))
                  .as("n=%d keys=%s chunk %d", n, java.util.Arrays.toString(keys), chunk)
                  .isEqualTo(new BigInteger(Long.toUnsignedString(expected.getLong())));
            }
            seen++;
          }
          assertThat(seen).isEqualTo(rows.size());
        }
      }
    }
  }
}
