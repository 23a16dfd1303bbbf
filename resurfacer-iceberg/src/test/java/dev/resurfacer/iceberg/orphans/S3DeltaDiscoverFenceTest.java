package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.S3Server;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.storage.StorageFences;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code s3://} discover root of a delta catalog lying inside an Iceberg table's storage on S3
 * (s3proxy): the orphan scan covers it, and no run deletes an object under it, whichever scheme
 * spelling ({@code s3a://} in the delta catalog, {@code s3://} in Iceberg) each side uses, and whether
 * or not a catalog names the Delta table: its {@code _delta_log} objects fence it.
 */
class S3DeltaDiscoverFenceTest {
  @RegisterExtension
  static final S3Server S3 = new S3Server("fence");

  @TempDir
  Path dir;

  @Test
  void noOrphanRunDeletesUnderAnS3DiscoverRootInsideTheTable() throws Exception {
    Map<String, String> props = new HashMap<>(S3.clientProperties());
    props.put("io-impl", S3FileIO.class.getName());
    CatalogConfig iceberg = new CatalogConfig(
        "lake", "jdbc", SqliteCatalogs.uri(dir), S3.warehouse("wh"), props, Set.of());
    CatalogConfig deltas = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of(),
        List.of("s3a://fence/wh/db/orders/lake"));
    Catalog catalog = Catalogs.open(iceberg);
    try (Closeable c = (Closeable) catalog) {
      ((org.apache.iceberg.catalog.SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      Table orders = Orders.create(catalog, "db", "orders", 2);
      var append = orders.newAppend();
      TableWrites.writeData(orders, Orders.rows(0, 20, 0)).forEach(append::appendFile);
      append.commit();
      assertThat(orders.location()).isEqualTo("s3://fence/wh/db/orders");
      String delta = orders.location() + "/lake/raw/events";
      List<String> deltaObjects =
          List.of(delta + "/_delta_log/00000000000000000000.json", delta + "/part-00000.parquet");
      String orphan = orders.location() + "/data/orphan.parquet";
      try (S3FileIO io = S3.fileIO()) {
        for (String location : List.of(deltaObjects.get(0), deltaObjects.get(1), orphan)) {
          write(io.newOutputFile(location));
        }
      }
      Set<String> before = S3.objects(orders.location());
      assertThat(before).containsAll(deltaObjects).contains(orphan);

      // the Delta census is not on this module's classpath: the table is seen by its _delta_log
      // alone, as one no catalog names would be
      for (StorageFences fences : List.of(
          StorageFences.forCatalogs(List.of(iceberg, deltas), null),
          StorageFences.forCatalogs(List.of(iceberg), null))) {
        assertThatThrownBy(() -> sweep(catalog, orders, fences))
            .isInstanceOf(SafetyRefusal.class)
            .hasMessageContaining("a Delta table lives at s3://fence/wh/db/orders/lake/raw/events");
        assertThat(S3.objects(orders.location()))
            .as("the whole run refused: nothing deleted")
            .isEqualTo(before);
      }
    }
  }

  private static OrphanReport sweep(Catalog catalog, Table table, StorageFences fences) {
    OrphanRemoval removal = OrphanRemovalSeams.clock(
        OrphanRemoval.of(catalog, TableIdentifier.of("db", "orders"), table)
            .olderThan(Duration.ZERO),
        Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
    return removal.fences(fences).execute();
  }

  private static void write(OutputFile file) throws Exception {
    try (PositionOutputStream out = file.create()) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
  }
}
