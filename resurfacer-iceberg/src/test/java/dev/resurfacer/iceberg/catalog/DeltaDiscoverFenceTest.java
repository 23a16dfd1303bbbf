package dev.resurfacer.iceberg.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A delta catalog's discover roots are neighbours of every Iceberg table: no orphan sweep deletes under them. */
class DeltaDiscoverFenceTest {
  @Test
  void everyDiscoverRootIsANeighbourLocationBesideTheNamedTables() throws Exception {
    var deltas = new CatalogConfig("deltas", CatalogConfig.DELTA, null, null, Map.of(), Set.of(),
        Map.of("raw.events", "/data/events"), List.of("/data/lake", "file:/mnt/more", "s3a://bucket/lake"));
    try (CatalogCensus census = CatalogCensus.of(List.of(deltas))) {
      assertThat(census.entries()).extracting(CatalogCensus.Entry::location)
          .containsExactlyInAnyOrder("/data/events", "/data/lake", "file:/mnt/more", "s3a://bucket/lake");
    }
  }
}
