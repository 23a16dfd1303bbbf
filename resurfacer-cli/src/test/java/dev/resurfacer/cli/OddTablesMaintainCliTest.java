package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.EveryOperation;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog of the tables real catalogs hold: names with dots, colons, slashes, blanks and unicode
 * (created through the catalog API, as Spark creates {@code db.`table:with.special:chars`}), every
 * partition transform condensing does not apply to, uuid/fixed/binary columns and a column named
 * {@code letter/abc}, deletes, a tag and a branch. {@code maintain --yes} with every operation
 * enabled (condense included) through the CLI: exit 0, every operation {@code done} or
 * {@code nothing_to_do} with its reason, no {@code previewed}, and the same type-tagged content in
 * every snapshot, branch and tag that is kept. Then every verb addresses the odd names, quoted
 * either way.
 */
class OddTablesMaintainCliTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(3, "cat", Types.StringType.get()),
      Types.NestedField.optional(4, "letter/abc", Types.StringType.get()),
      Types.NestedField.optional(5, "u", Types.UUIDType.get()),
      Types.NestedField.optional(6, "f", Types.FixedType.ofLength(4)),
      Types.NestedField.optional(7, "b", Types.BinaryType.get()));

  static final String SPECIAL = "db.`table:with.special:chars`";

  @TempDir
  Path dir;

  Path lake;
  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    lake = dir.resolve("lake");
    catalog = SqliteCatalogs.create("lake", lake);
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
  }

  private static List<Record> rows(long start, int n, int month) {
    Random rng = new Random(start);
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long id = start + i;
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField(
          "ts",
          LocalDateTime.of(
              2020 + month / 12, 1 + month % 12, 1 + (int) (id % 27), (int) (id % 24), 0));
      r.setField("cat", List.of("aa", "ab", "ba", "bb").get((int) (id % 4)));
      r.setField("letter/abc", Character.toString('a' + (int) (id * 7 % 26)) + "/" + id);
      r.setField("u", id % 11 == 0 ? null : new UUID(rng.nextLong(), rng.nextLong()));
      byte[] fixed = new byte[4];
      rng.nextBytes(fixed);
      r.setField("f", fixed);
      byte[] bytes = new byte[rng.nextInt(10)];
      rng.nextBytes(bytes);
      r.setField("b", id % 13 == 0 ? null : ByteBuffer.wrap(bytes));
      out.add(r);
    }
    return out;
  }

  /**
   * Six small appends over two months, a position and an equality delete, a tag after the second
   * append and a branch with a commit of its own.
   */
  private Table create(String name, UnaryOperator<PartitionSpec.Builder> spec, int formatVersion) {
    Table table = catalog
        .buildTable(TableIdentifier.of(Namespace.of("db"), name), SCHEMA)
        .withPartitionSpec(spec.apply(PartitionSpec.builderFor(SCHEMA)).build())
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
    List<DataFile> first = new ArrayList<>();
    for (int a = 0; a < 6; a++) {
      var append = table.newAppend();
      List<DataFile> files = TableWrites.writeData(table, rows(a * 40L, 40, a % 2));
      files.forEach(append::appendFile);
      append.commit();
      if (a == 0) {
        first.addAll(files);
      }
      if (a == 1) {
        table
            .manageSnapshots()
            .createTag("t1", table.currentSnapshot().snapshotId())
            .commit();
      }
    }
    DataFile victim = first.get(0);
    var deletes = table.newRowDelta();
    if (formatVersion >= 3) {
      TableWrites.writeDeletionVectors(table, Map.of(victim, List.of(0L, 2L)))
          .forEach(deletes::addDeletes);
    } else {
      deletes.addDeletes(TableWrites.writePositionDeletes(
          table,
          table.specs().get(victim.specId()),
          victim.partition(),
          List.of(new Position(victim.location(), 0), new Position(victim.location(), 2))));
    }
    deletes.commit();
    Schema idOnly = SCHEMA.select("id");
    Record gone = GenericRecord.create(idOnly);
    gone.setField("id", 45L);
    var eqPartition = TableWrites.groupByPartition(table.spec(), SCHEMA, rows(45, 1, 1))
        .keySet()
        .iterator()
        .next();
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table, table.spec(), eqPartition, idOnly, List.of(gone)))
        .commit();
    table
        .manageSnapshots()
        .createBranch("audit", table.currentSnapshot().snapshotId())
        .commit();
    var onBranch = table.newAppend();
    TableWrites.writeData(table, rows(1_000, 10, 0)).forEach(onBranch::appendFile);
    onBranch.toBranch("audit").commit();
    table.refresh();
    return table;
  }

  /** Every ref's content and every snapshot's, by name and by id. */
  private static Map<String, List<String>> contents(Table table) {
    table.refresh();
    Map<String, List<String>> out = new TreeMap<>();
    table.refs().forEach((ref, r) -> out.put("ref " + ref, at(table, r.snapshotId())));
    for (Snapshot s : table.snapshots()) {
      out.put("snapshot " + s.snapshotId(), at(table, s.snapshotId()));
    }
    return out;
  }

  private static List<String> at(Table table, long snapshotId) {
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      return Content.of(table.schema(), records);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private CliRun cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--config", dir.resolve("resurfacer.yml").toString()));
    return CliRun.run(dir, all.toArray(String[]::new));
  }

  @Test
  void
      maintainWithEveryOperationOnOddTablesIsDoneOrNothingToDoEverywhereAndKeepsEveryKeptSnapshotsContent()
          throws Exception {
    Map<String, Table> tables = new LinkedHashMap<>();
    tables.put(SPECIAL, create("table:with.special:chars", b -> b, 3));
    tables.put("db.plain", create("plain", b -> b, 2));
    tables.put("db.by_identity", create("by_identity", b -> b.identity("cat"), 2));
    tables.put("db.by_bucket", create("by_bucket", b -> b.bucket("id", 3), 2));
    tables.put("db.by_truncate", create("by_truncate", b -> b.truncate("cat", 1), 2));
    tables.put("db.by_month", create("by_month", b -> b.month("ts"), 2));
    tables.put("db.by_year", create("by_year", b -> b.year("ts"), 3));
    tables.put("db.by_day", create("by_day", b -> b.day("ts"), 2));
    tables.put("db.`with space`", create("with space", b -> b.identity("cat"), 2));
    tables.put("db.données", create("données", b -> b, 2));
    tables.put("db.zorder:bytes", create("zorder:bytes", b -> b, 2));
    tables.put("db.sort/slash", create("sort/slash", b -> b.bucket("id", 2), 2));
    Map<String, Map<String, List<String>>> before = new LinkedHashMap<>();
    tables.forEach((name, t) -> before.put(name, contents(t)));
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        MaintainCliTest.catalogYml(lake) + EveryOperation.POLICY + """
        tables:
          "db.`zorder:bytes`":
            compact: {strategy: zorder, zorder-columns: [u, b, f], rewrite-all: true}
          '"db"."sort/slash"':
            compact: {strategy: sort, sort-by: "`letter/abc` DESC, id", rewrite-all: true}
        """);

    CliRun run = cli("maintain", "--yes", "--quiet", "--output", "json");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(run.out());
    List<String> reported = new ArrayList<>();
    for (JsonNode t : report.get("tables")) {
      String name = t.get("table").asText();
      reported.add(name);
      assertThat(t.get("outcome").asText()).as(t.toString()).isEqualTo("done");
      List<String> operations = new ArrayList<>();
      for (JsonNode o : t.get("operations")) {
        operations.add(o.get("operation").asText());
        assertThat(o.get("outcome").asText()).as(name + " " + o).isIn("done", "nothing_to_do");
        assertThat(o.get("message").asText()).as(name + " " + o).isNotBlank();
      }
      assertThat(operations).as(name).containsExactlyElementsOf(EveryOperation.DESIGN_ORDER);
    }
    assertThat(reported).containsExactlyInAnyOrderElementsOf(tables.keySet());
    assertThat(run.out()).doesNotContain("\"outcome\":\"previewed\"").doesNotContain("would ");
    assertThat(report.get("summary").get("previewed").asLong()).isZero();
    assertThat(report.get("summary").get("done").asLong()).isEqualTo(tables.size());

    // condensing applies to the day table only, and every other table says why not; the compaction
    // after it keeps it condensed
    assertThat(operation(report, "db.by_day", "condense").get("outcome").asText())
        .isEqualTo("done");
    Table byDay = tables.get("db.by_day");
    byDay.refresh();
    java.util.Set<Integer> condensed =
        dev.resurfacer.iceberg.compact.Condensing.condensedSpecIds(byDay);
    assertThat(condensed).hasSize(1);
    try (var tasks = byDay.newScan().planFiles()) {
      tasks.forEach(
          t -> assertThat(condensed).as(t.file().location()).contains(t.file().specId()));
    }
    for (String name : List.of(
        SPECIAL, "db.by_identity", "db.by_bucket", "db.by_truncate", "db.by_month", "db.by_year")) {
      JsonNode condense = operation(report, name, "condense");
      assertThat(condense.get("outcome").asText()).as(name).isEqualTo("nothing_to_do");
      assertThat(condense.get("message").asText())
          .as(name)
          .startsWith("does not apply: the default spec");
    }
    // the policies under quoted keys reached their tables: z-order of uuid, binary and fixed, a
    // sort by letter/abc
    assertThat(operation(report, "db.zorder:bytes", "compact").get("outcome").asText())
        .isEqualTo("done");
    assertThat(operation(report, "db.sort/slash", "compact").get("outcome").asText())
        .isEqualTo("done");
    assertThat(cli("policy", "db.`zorder:bytes`").out()).contains("strategy zorder (u,b,f)");

    // every snapshot, branch and tag still there reads exactly as before
    for (Map.Entry<String, Table> e : tables.entrySet()) {
      Map<String, List<String>> after = contents(e.getValue());
      assertThat(after).as(e.getKey()).containsKeys("ref main", "ref t1", "ref audit");
      after.forEach((what, content) -> {
        if (what.startsWith("ref ") && !what.equals("ref main")) {
          assertThat(content)
              .as(e.getKey() + " " + what)
              .isEqualTo(before.get(e.getKey()).get(what));
        }
        if (what.startsWith("snapshot ") && before.get(e.getKey()).containsKey(what)) {
          assertThat(content)
              .as(e.getKey() + " " + what)
              .isEqualTo(before.get(e.getKey()).get(what));
        }
      });
      assertThat(after.get("ref main"))
          .as(e.getKey())
          .isEqualTo(before.get(e.getKey()).get("ref main"));
    }
  }

  private static JsonNode operation(JsonNode report, String table, String operation) {
    for (JsonNode t : report.get("tables")) {
      if (t.get("table").asText().equals(table)) {
        for (JsonNode o : t.get("operations")) {
          if (o.get("operation").asText().equals(operation)) {
            return o;
          }
        }
      }
    }
    throw new AssertionError(table + " " + operation + " not in the report");
  }

  @Test
  void everyVerbAddressesAnOddNameQuotedEitherWayAndGlobsMatchItsParts() throws Exception {
    Table table = create("table:with.special:chars", b -> b.identity("cat"), 2);
    create("plain", b -> b, 2);
    List<String> content = Content.of(table);
    Files.writeString(dir.resolve("resurfacer.yml"), MaintainCliTest.catalogYml(lake) + """
        tables:
          "db.`table:with.special:chars`":
            compact: {min-input-files: 2}
        """);

    for (String name : List.of(
        SPECIAL, "\"db\".\"table:with.special:chars\"", "`db`.`table:with.special:chars`")) {
      for (List<String> verb : List.of(
          List.of("describe"),
          List.of("plan"),
          List.of("policy"),
          List.of("expire"),
          List.of("remove-orphans"),
          List.of("rewrite-manifests"),
          List.of("remove-dangling-deletes"),
          List.of("rewrite-position-deletes"),
          List.of("convert-equality-deletes"),
          List.of("compute-stats"),
          List.of("compute-stats", "--columns", "`letter/abc`,u"),
          List.of("compute-partition-stats"),
          List.of("apply-retention"),
          List.of("condense"),
          List.of("compact", "--strategy", "sort", "--sort-by", "letter/abc"),
          List.of("compact", "--strategy", "zorder", "--columns", "`letter/abc`,u,b"))) {
        List<String> args = new ArrayList<>(verb);
        args.add(1, name);
        CliRun r = cli(args.toArray(String[]::new));
        assertThat(r.exitCode())
            .as(String.join(" ", args) + "\n" + r.out() + r.err())
            .isZero();
      }
    }
    assertThat(cli("policy", SPECIAL).out()).contains("min-input-files").contains("2");
    assertThat(cli("condense", SPECIAL).out())
        .contains("nothing to do: does not apply: the default spec (cat identity)");
    // unquoted, the dots split the name: another table, which does not exist
    CliRun unquoted = cli("describe", "db.table:with.special:chars");
    assertThat(unquoted.exitCode()).isEqualTo(2);
    assertThat(unquoted.err()).contains("does not exist");

    CliRun sorted = cli(
        "compact",
        "\"db\".\"table:with.special:chars\"",
        "--strategy",
        "sort",
        "--sort-by",
        "`letter/abc` DESC",
        "--min-input-files",
        "2",
        "--yes");
    assertThat(sorted.exitCode()).as(sorted.out() + sorted.err()).isZero();
    CliRun zordered = cli(
        "compact",
        SPECIAL,
        "--strategy",
        "zorder",
        "--columns",
        "letter/abc,u",
        "--columns",
        "f",
        "--option",
        "rewrite-all=true",
        "--yes");
    assertThat(zordered.exitCode()).as(zordered.out() + zordered.err()).isZero();
    assertThat(Content.of(table)).isEqualTo(content);

    CliRun only = cli("maintain", "--tables", "db.table:*", "--output", "json");
    assertThat(only.exitCode()).as(only.out() + only.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(only.out());
    assertThat(report.get("tables")).hasSize(1);
    assertThat(report.get("tables").get(0).get("table").asText()).isEqualTo(SPECIAL);
    assertThat(new ObjectMapper()
            .readTree(cli(
                    "maintain",
                    "--tables",
                    "\"db\".\"table:with.special:chars\"",
                    "--output",
                    "json")
                .out())
            .get("tables"))
        .hasSize(1);
    assertThat(CliRun.run(dir, "__complete-tables").out().lines().toList())
        .contains(SPECIAL, "db.plain");
  }

  /**
   * A table whose metadata is gone is reported as failed; the other is maintained, all but its orphan
   * removal, which is refused because the broken table could share its storage; the exit code says a
   * table failed.
   */
  @Test
  void aTableThatCannotBeOpenedIsReportedAndTheRunGoesOn() throws Exception {
    Table broken = create("table:with.special:chars", b -> b, 2);
    create("plain", b -> b, 2);
    Files.delete(Path.of(java.net
        .URI
        .create(((HasTableOperations) broken).operations().current().metadataFileLocation())
        .getPath()));
    Files.writeString(
        dir.resolve("resurfacer.yml"), MaintainCliTest.catalogYml(lake) + EveryOperation.POLICY);

    CliRun run = cli("maintain", "--yes", "--quiet", "--output", "json");

    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
    JsonNode report = new ObjectMapper().readTree(run.out());
    assertThat(report.get("summary").get("failed").asLong()).isEqualTo(1);
    assertThat(report.get("summary").get("refused").asLong()).isEqualTo(1);
    for (JsonNode t : report.get("tables")) {
      if (t.get("table").asText().equals(SPECIAL)) {
        assertThat(t.get("outcome").asText()).isEqualTo("failed");
        assertThat(t.get("message").asText()).startsWith("cannot open table: ");
        t.get("operations")
            .forEach(o -> assertThat(o.get("outcome").asText()).isEqualTo("skipped"));
      } else {
        assertThat(t.get("outcome").asText()).isEqualTo("refused");
        assertThat(t.get("message").asText())
            .startsWith("remove-orphans refused: ")
            .contains("cannot read table " + SPECIAL);
        t.get("operations")
            .forEach(o -> assertThat(o.get("outcome").asText())
                .as(o.toString())
                .isIn(
                    o.get("operation").asText().equals("remove-orphans")
                        ? List.of("refused")
                        : List.of("done", "nothing_to_do")));
      }
    }
  }
}
