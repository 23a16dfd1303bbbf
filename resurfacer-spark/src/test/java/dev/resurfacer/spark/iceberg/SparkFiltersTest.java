package dev.resurfacer.spark.iceberg;

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

/** {@code --where}/{@code --partition} as the SQL text Spark's rewrite_data_files receives: typed literals, quoted names, no user text. */
class SparkFiltersTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "cat", Types.StringType.get()),
      Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(4, "day", Types.DateType.get()),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "local", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(7, "score", Types.DoubleType.get()),
      Types.NestedField.optional(8, "n", Types.IntegerType.get()));

  static Table table(Path dir) {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA).identity("cat").day("ts").build();
    return new HadoopTables(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf())
        .create(SCHEMA, spec, dir.resolve("t").toString());
  }

  static String sql(Table t, String where, String partition) {
    return SparkFilters.sql(t, SparkFilters.filter(t, where, partition));
  }

  @Test
  void literalsAreTypedByTheColumnTheyMeet(@TempDir Path dir) {
    Table t = table(dir);
    assertThat(sql(t, "id >= 3000000000 AND n <> 5 AND amount > 1.50", null))
        .isEqualTo(
            "((`id` >= 3000000000L AND `n` <> 5) AND `amount` > CAST(1.50BD AS DECIMAL(12,2)))");
    assertThat(sql(
            t,
            "day = '2026-01-02' OR ts < '2026-01-02T03:04:05.000006+00:00' OR local >= '2026-01-02T00:00:00'",
            null))
        .isEqualTo("((`day` = DATE '2026-01-02' OR `ts` < TIMESTAMP '2026-01-02 03:04:05.000006Z')"
            + " OR `local` >= TIMESTAMP_NTZ '2026-01-02 00:00:00.000000')");
    assertThat(sql(t, "cat IN ('c', 'b') AND cat IS NOT NULL", null))
        .isEqualTo("(`cat` IN ('b', 'c') AND `cat` IS NOT NULL)");
    assertThat(sql(t, null, null)).isNull();
  }

  @Test
  void aPartitionPathIsEqualityOnItsIdentityColumnsAndATransformIsRefused(@TempDir Path dir) {
    Table t = table(dir);
    assertThat(sql(t, null, "cat=a")).isEqualTo("`cat` = 'a'");
    assertThat(sql(t, "id > 1", "cat=null")).isEqualTo("(`id` > 1L AND `cat` IS NULL)");
    assertThatThrownBy(() -> sql(t, null, "ts_day=2026-01-01"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "--partition ts_day with --engine spark: ts_day is day of a column, which rewrite_data_files cannot select by;"
                + " use --where on ts");
    assertThatThrownBy(() -> sql(t, null, "nope=1"))
        .hasMessageContaining("has no partition field nope");
  }
}
