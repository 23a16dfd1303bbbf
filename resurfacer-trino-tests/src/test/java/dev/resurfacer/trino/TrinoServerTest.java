package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.trino.testing.TrinoLake;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fixture itself: Trino writes through the REST catalog onto s3proxy, and Iceberg core reads the same rows. */
class TrinoServerTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  @Test
  void trinoWritesATableThatIcebergCoreReadsBack() {
    LAKE.sql("CREATE SCHEMA IF NOT EXISTS iceberg.fixture");
    LAKE.sql("CREATE TABLE iceberg.fixture.t (id BIGINT, name VARCHAR) WITH (format_version = 2)");
    LAKE.sql("INSERT INTO iceberg.fixture.t VALUES (1, 'a'), (2, 'b'), (3, NULL)");
    assertThat(LAKE.rows("SELECT * FROM iceberg.fixture.t"))
        .containsExactly(
            "{id:bigint=1, name:varchar=a}",
            "{id:bigint=2, name:varchar=b}",
            "{id:bigint=3, name:varchar=null}");
    Table table = LAKE.catalog().loadTable(TableIdentifier.of("fixture", "t"));
    assertThat(Content.of(table)).hasSize(3);
    assertThat(table.location()).startsWith(LAKE.rest().warehouse());
    assertThat(LAKE.s3().objects(table.location())).anyMatch(f -> f.endsWith(".parquet"));
  }
}
