package dev.resurfacer.iceberg.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataRetentionTest {
  @TempDir
  Path dir;

  private long metadataJsonOnDisk(Table table) throws IOException {
    try (Stream<Path> files = Files.list(Path.of(table.location(), "metadata"))) {
      return files.filter(p -> p.toString().endsWith(".metadata.json")).count();
    }
  }

  @Test
  void reportsStrandedFilesAndSetsTheProperties() throws IOException {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog.createTable(
        TableIdentifier.of("db", "t"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    // a log trimmed to 3 without deleting: older files are stranded on disk
    table
        .updateProperties()
        .set(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "3")
        .commit();
    for (int i = 0; i < 8; i++) {
      table.updateProperties().set("k", Integer.toString(i)).commit();
    }
    table.refresh();
    long onDisk = metadataJsonOnDisk(table);
    assertThat(onDisk).isEqualTo(10);

    MetadataRetention.Result preview = MetadataRetention.plan(table, 5, true).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.metadataInLog()).isEqualTo(4);
    assertThat(preview.strandedFiles()).isEqualTo(6);
    assertThat(preview.strandedBytes()).isPositive();
    assertThat(preview.propertiesToSet())
        .containsEntry(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
        .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "5");
    assertThat(metadataJsonOnDisk(table)).isEqualTo(onDisk);

    MetadataRetention.Result applied =
        MetadataRetention.execute(MetadataRetention.plan(table, 5, true));
    assertThat(applied.committed()).isTrue();
    table.refresh();
    assertThat(table.properties())
        .containsEntry(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
        .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "5");
    for (int i = 0; i < 10; i++) {
      table.updateProperties().set("k", "again-" + i).commit();
    }
    table.refresh();
    // from now on commits delete what leaves the log; the 6 stranded before stay for remove-orphans
    assertThat(metadataJsonOnDisk(table)).isEqualTo(6 + 6);
    assertThat(MetadataRetention.plan(table, 5, true).preview().propertiesToSet())
        .isEmpty();
    assertThatThrownBy(() -> MetadataRetention.plan(table, 0, true))
        .isInstanceOf(UsageException.class);
  }
}
