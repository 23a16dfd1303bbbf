package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeltaWhereTest {
  private static final StructType SCHEMA = new StructType()
      .add("id", LongType.LONG)
      .add("region", StringType.STRING)
      .add("day", DateType.DATE)
      .add("bucket", IntegerType.INTEGER);
  private static final List<String> PARTITIONS = List.of("region", "day", "bucket");

  private static boolean matches(String where, String region, String day, String bucket) {
    Map<String, String> p = new HashMap<>();
    p.put("region", region);
    p.put("day", day);
    p.put("bucket", bucket);
    return DeltaWhere.parse(where, SCHEMA, PARTITIONS).matches().test(p);
  }

  @Test
  void comparesPartitionValuesInTheColumnsTypes() {
    assertThat(matches("region = 'eu'", "eu", "2026-01-01", "1")).isTrue();
    assertThat(matches("region IN ('us', 'eu') AND day >= '2026-01-01'", "eu", "2026-01-02", "1"))
        .isTrue();
    assertThat(matches("day < '2026-01-01'", "eu", "2026-01-02", "1")).isFalse();
    assertThat(matches("bucket > 9", "eu", "2026-01-02", "10"))
        .as("numeric, not text order")
        .isTrue();
    assertThat(matches("region = 'eu' OR bucket = 3", "us", "2026-01-02", "3")).isTrue();
    assertThat(matches("region NOT IN ('eu')", "us", "2026-01-02", "3")).isTrue();
  }

  @Test
  void aNullPartitionValueIsUnknownAndSelectsNothingUnlessAskedForByIsNull() {
    assertThat(matches("region = 'eu'", null, "2026-01-01", "1")).isFalse();
    assertThat(matches("region != 'eu'", null, "2026-01-01", "1")).isFalse();
    assertThat(matches("region NOT IN ('eu')", null, "2026-01-01", "1")).isFalse();
    assertThat(matches("region IS NULL", null, "2026-01-01", "1")).isTrue();
    assertThat(matches("region IS NULL OR bucket = 1", "eu", "2026-01-01", "1")).isTrue();
  }

  @Test
  void dataColumnsAndBadLiteralsAreOneLineUsageErrors() {
    assertThatThrownBy(() -> DeltaWhere.parse("id = 3", SCHEMA, PARTITIONS))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "--where on a Delta table names partition columns only (region, day, bucket); id is not one");
    assertThatThrownBy(() -> matches("day = 'yesterday'", "eu", "2026-01-01", "1"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("'yesterday' is not a value of day");
    assertThat(DeltaWhere.parse(null, SCHEMA, PARTITIONS)).isSameAs(PartitionFilter.ALL);
  }
}
