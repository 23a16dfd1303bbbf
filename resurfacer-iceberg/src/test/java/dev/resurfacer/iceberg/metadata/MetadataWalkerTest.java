package dev.resurfacer.iceberg.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataWalkerTest {
  @TempDir
  Path dir;

  /** Three appends: the third snapshot names all three manifests, which the walk reads once each. */
  @Test
  void everyReferencedFileOnceEachManifestReadOnceAndBothModesAgree() throws Exception {
    try (JdbcCatalog catalog = SqliteCatalogs.create("c", dir)) {
      Table table = Fleet.smallFiles(catalog, "db", "t", 3);
      TableMetadata metadata = ((HasTableOperations) table).operations().current();
      Set<String> live = new HashSet<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> live.add(t.file().location()));
      }
      List<String> entries = new ArrayList<>();
      List<Long> sizes = new ArrayList<>();
      Set<String> manifests = new LinkedHashSet<>();
      int[] manifestVisits = {0};
      Set<String> lists = new HashSet<>();
      Set<String> metadataJson = new HashSet<>();
      MetadataWalker.withSizes(table.io()).walk(metadata, new MetadataWalker.Sink() {
        @Override
        public void file(MetadataWalker.Kind kind, String location, long size) {
          switch (kind) {
            case DATA -> {
              entries.add(location);
              sizes.add(size);
            }
            case MANIFEST -> manifests.add(location);
            case MANIFEST_LIST -> lists.add(location);
            case METADATA_JSON -> metadataJson.add(location);
            default -> throw new AssertionError(kind + " " + location);
          }
        }

        @Override
        public boolean manifest(org.apache.iceberg.ManifestFile m) {
          manifestVisits[0]++;
          return MetadataWalker.Sink.super.manifest(m);
        }
      });
      assertThat(entries).hasSize(3).containsExactlyInAnyOrderElementsOf(live);
      assertThat(sizes).allMatch(s -> s > 0);
      assertThat(manifests).hasSize(3);
      assertThat(manifestVisits[0]).isEqualTo(1 + 2 + 3);
      assertThat(lists).hasSize(3);
      assertThat(metadataJson).hasSize(4).contains(metadata.metadataFileLocation());

      List<String> paths = new ArrayList<>();
      MetadataWalker.pathsOnly(table.io()).walk(metadata, (kind, location, size) -> {
        if (kind == MetadataWalker.Kind.DATA) {
          paths.add(location);
          assertThat(size).isEqualTo(-1);
        }
      });
      assertThat(paths).containsExactlyElementsOf(entries);
    }
  }
}
