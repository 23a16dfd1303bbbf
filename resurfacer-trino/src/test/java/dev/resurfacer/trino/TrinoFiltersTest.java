package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.nio.file.Path;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --where and --partition as Trino SQL: typed literals from the schema, quoting, transformed fields refused. */
class TrinoFiltersTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "cat", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(4, "day", Types.DateType.get()),
      Types.NestedField.optional(5, "price", Types.DecimalType.of(10, 2)));

  @TempDir
  Path dir;

  Table table() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA).identity("cat").day("ts").build();
    return new HadoopTables().create(SCHEMA, spec, dir.resolve("t").toString());
  }

  @Test
  void whereBecomesTypedTrinoSql() {
    Table t = table();
    assertThat(TrinoFilters.where(
            t,
            "ts >= '2026-10-01T00:00:00' AND cat IN ('b', 'a') AND price < 9.50 AND day = '2026-01-02'",
            null))
        .isEqualTo(
            "(((\"ts\" >= TIMESTAMP '2026-10-01 00:00:00.000000' AND \"cat\" IN ('a', 'b')) AND \"price\" < DECIMAL '9.50')"
                + " AND \"day\" = DATE '2026-01-02')");
    assertThat(TrinoFilters.where(t, "cat IS NULL OR id != 3", null))
        .isEqualTo("(\"cat\" IS NULL OR \"id\" <> 3)");
    assertThat(TrinoFilters.where(t, null, null)).isNull();
  }

  @Test
  void partitionPathBecomesColumnEqualityAndTransformsAreRefused() {
    Table t = table();
    assertThat(TrinoFilters.where(t, null, "cat=a")).isEqualTo("\"cat\" = 'a'");
    assertThatThrownBy(() -> TrinoFilters.where(t, null, "cat=a/ts_day=2026-10-01"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("use --where on ts");
    assertThatThrownBy(() -> TrinoFilters.where(t, null, "nope=1"))
        .isInstanceOf(UsageException.class);
  }
}
