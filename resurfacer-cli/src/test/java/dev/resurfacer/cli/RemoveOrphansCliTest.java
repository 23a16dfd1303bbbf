package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemoveOrphansCliTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()));
  static final long OLD = System.currentTimeMillis() - Duration.ofDays(10).toMillis();

  @TempDir
  Path dir;

  @Test
  void previewsByDefaultAndDeletesOnlyWithYes() throws Exception {
    Path catDir = dir.resolve("cat");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .create();
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10)).get(0))
        .commit();
    TableWrites.writeData(table, rows(100, 10));
    Path orphan = Path.of(table.location(), "data", "orphan.parquet");
    Files.writeString(orphan, "abandoned by a failed job");
    orphan.toFile().setLastModified(OLD);
    catalog.close();
    String[] flags = {
      "--catalog-name",
      "lake",
      "--catalog-uri",
      SqliteCatalogs.uri(catDir),
      "--warehouse",
      SqliteCatalogs.warehouse(catDir)
    };

    CliRun preview = CliRun.run(dir, concat(new String[] {"remove-orphans", "db.t"}, flags));
    assertThat(preview.err()).isEmpty();
    assertThat(preview.exitCode()).isZero();
    assertThat(preview.out())
        .contains("preview: nothing deleted")
        .contains("orphans        1 files")
        .contains("orphan.parquet")
        .contains("1 unreferenced but younger than 3d");
    assertThat(orphan).exists();

    CliRun json = CliRun.run(
        dir, concat(new String[] {"remove-orphans", "db.t", "--output", "json", "--yes"}, flags));
    assertThat(json.exitCode()).isZero();
    JsonNode report = new ObjectMapper().readTree(json.out());
    assertThat(report.get("deleted").asBoolean()).isTrue();
    assertThat(report.get("deleted_files").asLong()).isEqualTo(1);
    assertThat(report.get("kept_too_young_files").asLong()).isEqualTo(1);
    assertThat(report.get("older_than").asText()).isEqualTo("3d");
    assertThat(report.get("referenced").get("data files").asLong()).isEqualTo(1);
    assertThat(report.get("orphans").get(0).get("size_bytes").asLong()).isEqualTo(25);
    assertThat(orphan).doesNotExist();
  }

  /** --listing with a plain list as `find -printf '%p\t%s\t%T@\n'` writes it: the same orphan as a live listing; a stale list refuses. */
  @Test
  void aPlainListingStandsInForTheLiveListing() throws Exception {
    Path catDir = dir.resolve("cat");
    WithOrphan w = tableWithAnOldOrphan(catDir);
    JdbcCatalog catalog = w.catalog();
    Table table = w.table();
    Path orphan = w.orphan();
    String[] flags = {
      "--catalog-name",
      "lake",
      "--catalog-uri",
      SqliteCatalogs.uri(catDir),
      "--warehouse",
      SqliteCatalogs.warehouse(catDir),
      "--output",
      "json"
    };
    Path listing = dir.resolve("listing.tsv");
    StringBuilder b = new StringBuilder();
    try (var files = Files.walk(Path.of(table.location()))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        long ms = Files.getLastModifiedTime(f).toMillis();
        b.append(f)
            .append('\t')
            .append(Files.size(f))
            .append('\t')
            .append(ms / 1000)
            .append('.')
            .append(String.format("%03d", ms % 1000))
            .append("0000000\n");
      }
    }
    Files.writeString(listing, b);

    CliRun preview = CliRun.run(
        dir,
        concat(new String[] {"remove-orphans", "db.t", "--listing", listing.toString()}, flags));
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(preview.out());
    assertThat(report.get("orphan_files").asLong()).isEqualTo(1);
    assertThat(report.get("orphans").get(0).get("location").asText()).endsWith("orphan.parquet");
    assertThat(report.get("listing").get("source").asText()).isEqualTo(listing.toString());

    // a commit the listing (dated by its newest file, a moment ago) cannot know of, then a list
    // that claims to be newer than it
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(20, 10)).get(0))
        .commit();
    catalog.close();
    CliRun honest = CliRun.run(
        dir,
        concat(
            new String[] {"remove-orphans", "db.t", "--listing", listing.toString(), "--yes"},
            flags));
    assertThat(honest.exitCode()).as(honest.err()).isZero();
    assertThat(orphan).doesNotExist();
    Path stale = dir.resolve("stale.tsv");
    Files.writeString(stale, "# taken-at: " + java.time.Instant.now().plusSeconds(1) + "\n" + b);
    Thread.sleep(1100);
    CliRun refused = CliRun.run(
        dir,
        concat(
            new String[] {"remove-orphans", "db.t", "--listing", stale.toString(), "--yes"},
            flags));
    assertThat(refused.exitCode()).isEqualTo(3);
    assertThat(refused.err()).contains("partial listing");
  }

  @Test
  void aFenceRefusesWithExitThreeAndDeletesNothing() throws Exception {
    Path catDir = dir.resolve("cat");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    catalog.createNamespace(Namespace.of("db"));
    Table outer = catalog.buildTable(TableIdentifier.of("db", "outer"), SCHEMA).create();
    outer
        .newAppend()
        .appendFile(TableWrites.writeData(outer, rows(0, 10)).get(0))
        .commit();
    Table inner = catalog
        .buildTable(TableIdentifier.of("db", "inner"), SCHEMA)
        .withLocation(outer.location() + "/inner")
        .create();
    inner
        .newAppend()
        .appendFile(TableWrites.writeData(inner, rows(0, 10)).get(0))
        .commit();
    catalog.close();
    Path innerData = Path.of(inner.location(), "data");
    try (var files = Files.walk(innerData)) {
      files.forEach(p -> p.toFile().setLastModified(OLD));
    }
    long before = count(Path.of(outer.location()));

    CliRun r = CliRun.run(
        dir,
        "remove-orphans",
        "db.outer",
        "--yes",
        "--older-than",
        "0s",
        "--catalog-name",
        "lake",
        "--catalog-uri",
        SqliteCatalogs.uri(catDir),
        "--warehouse",
        SqliteCatalogs.warehouse(catDir));

    assertThat(r.exitCode()).isEqualTo(3);
    // the age-guard warning comes first (0s), then the one-line refusal
    assertThat(r.err().lines().toList()).hasSize(2);
    assertThat(r.err().lines().toList().get(1))
        .startsWith("error: refused: remove-orphans db.outer: scope: table db.inner");
    assertThat(r.out()).isEmpty();
    assertThat(count(Path.of(outer.location()))).isEqualTo(before);
  }

  @Test
  void aTableOfAnotherConfiguredCatalogInsideThisOneIsSeenByRemoveOrphansAndMaintain()
      throws Exception {
    JdbcCatalog first = SqliteCatalogs.create("first", dir.resolve("one"));
    first.createNamespace(Namespace.of("db"));
    Table a = first.buildTable(TableIdentifier.of("db", "a"), SCHEMA).create();
    a.newAppend().appendFile(TableWrites.writeData(a, rows(0, 10)).get(0)).commit();
    JdbcCatalog second = SqliteCatalogs.create("second", dir.resolve("two"));
    second.createNamespace(Namespace.of("db"));
    Table b = second
        .buildTable(TableIdentifier.of("db", "b"), SCHEMA)
        .withLocation(a.location() + "/data/b")
        .create();
    b.newAppend().appendFile(TableWrites.writeData(b, rows(0, 10)).get(0)).commit();
    first.close();
    second.close();
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          first:
            type: jdbc
            uri: %s
            warehouse: %s
          second:
            type: jdbc
            uri: %s
            warehouse: %s
        defaults:
          compact: {enabled: false}
          remove-dangling-deletes: {enabled: false}
          rewrite-manifests: {enabled: false}
          expire: {enabled: false}
          remove-orphans:
            older-than: 0s
        """.formatted(
            SqliteCatalogs.uri(dir.resolve("one")),
            SqliteCatalogs.warehouse(dir.resolve("one")),
            SqliteCatalogs.uri(dir.resolve("two")),
            SqliteCatalogs.warehouse(dir.resolve("two"))));
    List<Path> before = files(Path.of(a.location()));

    CliRun verb = CliRun.run(
        dir, "remove-orphans", "db.a", "--catalog", "first", "--yes", "--older-than", "0s");
    assertThat(verb.exitCode()).isEqualTo(3);
    assertThat(verb.err()).contains("table db.b in catalog 'second'");
    assertThat(files(Path.of(a.location()))).isEqualTo(before);
    CliRun maintain = CliRun.run(dir, "maintain", "--yes");
    assertThat(maintain.exitCode()).isNotZero();
    assertThat(maintain.out()).contains("db.b in catalog 'second'");
    // maintain's table leases add metadata files; nothing that was there is gone
    assertThat(files(Path.of(a.location()))).containsAll(before);
  }

  @Test
  void quarantineAndRestoreThroughTheCliAndTheAgeWarningOnStderr() throws Exception {
    Path catDir = dir.resolve("cat");
    WithOrphan w = tableWithAnOldOrphan(catDir);
    JdbcCatalog catalog = w.catalog();
    Table table = w.table();
    Path orphan = w.orphan();
    catalog.close();
    String[] flags = {
      "--catalog-name",
      "lake",
      "--catalog-uri",
      SqliteCatalogs.uri(catDir),
      "--warehouse",
      SqliteCatalogs.warehouse(catDir)
    };

    CliRun q = CliRun.run(
        dir,
        concat(
            new String[] {
              "remove-orphans",
              "db.t",
              "--quarantine",
              "--yes",
              "--older-than",
              "1h",
              "--output",
              "json"
            },
            flags));
    assertThat(q.exitCode()).isZero();
    assertThat(q.err()).startsWith("warning: age guard 1h is under 1d");
    String runId = new ObjectMapper().readTree(q.out()).get("quarantine_run").asText();
    assertThat(orphan).doesNotExist();

    CliRun restore =
        CliRun.run(dir, concat(new String[] {"restore-orphans", "db.t", runId, "--yes"}, flags));
    assertThat(restore.exitCode()).isZero();
    assertThat(restore.out()).contains("restored       1 files");
    assertThat(Files.readString(orphan)).isEqualTo("abandoned by a failed job");

    CliRun bad = CliRun.run(dir, concat(new String[] {"restore-orphans", "db.t", "nope"}, flags));
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("run id must look like");
  }

  @Test
  void aMalformedAgeIsAUsageError() {
    CliRun r = CliRun.run(dir, "remove-orphans", "db.t", "--older-than", "soon");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("invalid duration 'soon'");
  }

  static long count(Path root) throws Exception {
    try (var s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  static List<Path> files(Path root) throws Exception {
    try (var s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private record WithOrphan(JdbcCatalog catalog, Table table, Path orphan) {}

  /** db.t in a SQLite catalog with one committed file and a 10-day-old orphan beside it. */
  private static WithOrphan tableWithAnOldOrphan(Path catDir) throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog.buildTable(TableIdentifier.of("db", "t"), SCHEMA).create();
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10)).get(0))
        .commit();
    Path orphan = Path.of(table.location(), "data", "orphan.parquet");
    Files.writeString(orphan, "abandoned by a failed job");
    orphan.toFile().setLastModified(OLD);
    return new WithOrphan(catalog, table, orphan);
  }

  static String[] concat(String[] a, String[] b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static List<Record> rows(long start, int n) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("category", "a");
      out.add(r);
    }
    return out;
  }
}
