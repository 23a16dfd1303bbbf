package dev.resurfacer.iceberg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageFileIOTest {
  @TempDir
  Path dir;

  /** gcs:// is not a scheme Iceberg maps to GCSFileIO: one line naming gs://, not Hadoop's "no FileSystem for scheme". */
  @Test
  void theGcsSchemeIsRefusedInOneLine() throws Exception {
    Catalog catalog = Catalogs.open(new CatalogConfig(
        "lake", "jdbc", SqliteCatalogs.uri(dir), "gcs://bucket/wh", Map.of(), Set.of()));
    try (Closeable c = (Closeable) catalog) {
      assertThatThrownBy(() -> Orders.create(catalog, "db", "t", 2))
          .isInstanceOf(UsageException.class)
          .hasMessageStartingWith("gcs://bucket/wh/db/t/metadata/")
          .hasMessageContaining("write gs://");
    }
    try (StorageFileIO io = new StorageFileIO()) {
      io.initialize(Map.of());
      for (String location : List.of("GCS://b/x", "gcs://b/x")) {
        assertThatThrownBy(() -> io.listPrefix(location)).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> io.deleteFiles(List.of("/tmp/ok", location)))
            .isInstanceOf(UsageException.class);
      }
      assertThat(StorageFileIO.supported("s3://b/x")).isEqualTo("s3://b/x");
      assertThat(StorageFileIO.supported("gs://b/x")).isEqualTo("gs://b/x");
    }
  }
}
