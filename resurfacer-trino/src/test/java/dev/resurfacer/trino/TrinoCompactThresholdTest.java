package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Compact;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Trino's optimize threshold is read from the step's options as the local engine reads them. */
class TrinoCompactThresholdTest {
  @TempDir
  Path dir;

  Table table(Map<String, String> properties) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    return new HadoopTables()
        .create(
            schema, PartitionSpec.unpartitioned(), properties, dir.resolve("t").toString());
  }

  private static Compact binPack(Map<String, String> options) {
    return new Compact("binpack", null, options);
  }

  @Test
  void sizesAreReadAsTheLocalEngineReadsThem() {
    Table t = table(Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1048576"));
    assertThat(TrinoCompact.threshold(binPack(Map.of()), t)).isEqualTo(786_432L);
    assertThat(TrinoCompact.threshold(binPack(Map.of("target-file-size-bytes", "256MB")), t))
        .isEqualTo(192L << 20);
    assertThat(TrinoCompact.threshold(
            binPack(Map.of("target-file-size-bytes", "256MB", "min-file-size-bytes", "96MB")), t))
        .isEqualTo(96L << 20);
    assertThat(TrinoCompact.threshold(binPack(Map.of("min-file-size-bytes", "1000")), t))
        .isEqualTo(1000L);
  }

  @Test
  void aBadSizeIsAUsageErrorNotACrash() {
    Table t = table(Map.of());
    assertThatThrownBy(
            () -> TrinoCompact.threshold(binPack(Map.of("min-file-size-bytes", "lots")), t))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("invalid size 'lots'");
  }
}
