package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.trino.testing.ResurfacerCli;
import dev.resurfacer.trino.testing.ResurfacerCli.Run;
import dev.resurfacer.trino.testing.TrinoLake;
import dev.resurfacer.trino.testing.TrinoTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --engine trino} end to end, the way a user runs it: the runnable jar as a child process,
 * resurfacer.yml naming the REST catalog and the Trino engine. Every supported verb previews without
 * changing anything, then acts through Trino, and Trino and Iceberg's own reader read the same rows;
 * refusals and bad input are one line with exit 3 or 2 and change nothing.
 */
class TrinoCliTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  static final TrinoTables TABLES = new TrinoTables(LAKE);

  @TempDir
  static Path dir;

  static Path config(String engineSection) throws Exception {
    return config(LAKE, dir, engineSection);
  }

  /** resurfacer.yml in {@code dir}: the REST catalog as {@code lake}, and {@code engineSection} under engines.trino. */
  static Path config(TrinoLake lake, Path dir, String engineSection) throws Exception {
    StringBuilder yaml = new StringBuilder(
        "catalogs:\n  lake:\n    type: rest\n    uri: " + lake.rest().uri() + "\n    warehouse: "
            + lake.rest().warehouse() + "\n    properties:\n");
    for (Map.Entry<String, String> e : lake.rest().clientProperties().entrySet()) {
      yaml.append("      ")
          .append(e.getKey())
          .append(": \"")
          .append(e.getValue())
          .append("\"\n");
    }
    yaml.append("engines:\n  trino:\n").append(engineSection);
    Path file = Files.createTempFile(dir, "resurfacer", ".yml");
    Files.writeString(file, yaml);
    return file;
  }

  static String engine() {
    return "    url: " + LAKE.trino().jdbcUrl()
        + "\n    catalog: iceberg\n    user: resurfacer-cli\n";
  }

  static Run resurfacer(Path config, Map<String, String> env, String... args) throws Exception {
    return ResurfacerCli.run(dir, config, "lake", env, args);
  }

  static Run resurfacer(Path config, String... args) throws Exception {
    return resurfacer(config, Map.of(), args);
  }

  static String ok(Run run) {
    assertThat(run.exit())
        .as("exit of a run that should succeed:%n%s%n%s", run.out(), run.err())
        .isZero();
    return run.out();
  }

  @Test
  void everySupportedVerbRunsThroughTrinoAndBothReadersSeeTheSameRows() throws Exception {
    IcebergTable t = TABLES.create("cli_verbs", 3, null);
    List<String> trino = TABLES.trinoRows("cli_verbs");
    List<String> ours = Content.of(t.table());
    String metadata = metadata(t);
    Path config = config(engine());

    // previews change nothing
    assertThat(ok(resurfacer(config, "compact", "ops.cli_verbs", "--engine", "trino")))
        .contains("on trino", "preview only");
    assertThat(ok(resurfacer(
            config, "expire", "ops.cli_verbs", "--engine", "trino", "--older-than", "0s")))
        .contains("would expire 4 snapshot(s)");
    assertThat(metadata(t)).isEqualTo(metadata);

    assertThat(ok(
            resurfacer(config, "rewrite-manifests", "ops.cli_verbs", "--engine", "trino", "--yes")))
        .contains("optimize_manifests");
    String strayFile = IcebergOnTrinoTest.strayFile(LAKE, t.table(), java.time.Duration.ofDays(2));
    assertThat(ok(resurfacer(
            config,
            "compact",
            "ops.cli_verbs",
            "--engine",
            "trino",
            "--partition",
            "cat=a",
            "--yes")))
        .contains("Trino's optimize rewrote 3 file(s)");
    assertThat(IcebergOnTrinoTest.filesOf(t.table(), "a")).hasSize(1);
    assertThat(IcebergOnTrinoTest.filesOf(t.table(), "b")).hasSize(3);
    assertThat(ok(resurfacer(config, "compact", "ops.cli_verbs", "--engine", "trino", "--yes")))
        .contains("verified");
    assertThat(ok(resurfacer(
            config, "expire", "ops.cli_verbs", "--engine", "trino", "--older-than", "0s", "--yes")))
        .contains("Trino's expire_snapshots expired");
    assertThat(ok(resurfacer(
            config,
            "remove-orphans",
            "ops.cli_verbs",
            "--engine",
            "trino",
            "--older-than",
            "1h",
            "--yes")))
        .contains("deleted 1 file(s)");

    t.table().refresh();
    assertThat(TABLES.trinoRows("cli_verbs")).isEqualTo(trino);
    assertThat(Content.of(t.table())).isEqualTo(ours);
    assertThat(IcebergOnTrinoTest.count(t.table().snapshots())).isEqualTo(1);
    Set<String> objects = LAKE.s3().objects(t.table().location());
    assertThat(objects).doesNotContain(strayFile).containsAll(Invariants.reachable(t.table()));
  }

  /** {@code engine: trino} under {@code defaults:} in resurfacer.yml: {@code maintain} compacts through Trino, in one report. */
  @Test
  void maintainWithEngineTrinoInThePolicyRunsThroughTrino() throws Exception {
    IcebergTable t = TABLES.create("cli_maintain", 3, null);
    List<String> trino = TABLES.trinoRows("cli_maintain");
    List<String> ours = Content.of(t.table());
    long filesBefore = IcebergOnTrinoTest.filesOf(t.table(), "a").size();
    Path config = config(engine());
    Files.writeString(config, Files.readString(config) + """
        defaults:
          engine: trino
          remove-dangling-deletes: {enabled: false}
          rewrite-manifests: {enabled: false}
          expire: {enabled: false}
          remove-orphans: {enabled: false}
        """);

    String report = ok(resurfacer(config, "maintain", "--tables", "ops.cli_maintain", "--yes"));

    assertThat(report).contains("ops.cli_maintain", "Trino's optimize rewrote");
    t.table().refresh();
    assertThat(filesBefore).isGreaterThan(1);
    assertThat(IcebergOnTrinoTest.filesOf(t.table(), "a")).hasSize(1);
    assertThat(TABLES.trinoRows("cli_maintain")).isEqualTo(trino);
    assertThat(Content.of(t.table())).isEqualTo(ours);
  }

  @Test
  void refusalsAndBadInputAreOneLineAndChangeNothing() throws Exception {
    IcebergTable t = TABLES.create("cli_bad", 1, null);
    String metadata = metadata(t);

    Run zorder = resurfacer(
        config(engine()),
        "compact",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--strategy",
        "zorder",
        "--columns",
        "id,qty",
        "--yes");
    assertThat(zorder.exit()).as(zorder.err()).isEqualTo(3);
    assertThat(zorder.err()).contains("no z-order").doesNotContain("\n");

    Run dangling = resurfacer(
        config(engine()), "remove-dangling-deletes", "ops.cli_bad", "--engine", "trino", "--yes");
    assertThat(dangling.exit()).as(dangling.err()).isEqualTo(2);
    assertThat(dangling.err()).contains("Trino has no procedure for it").doesNotContain("\n");

    Run floored = resurfacer(
        config("    url: " + LAKE.trino().jdbcUrl() + "\n    catalog: iceberg_floored\n"),
        "expire",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--older-than",
        "1h",
        "--yes");
    assertThat(floored.exit()).as(floored.err()).isEqualTo(3);
    assertThat(floored.err())
        .contains("iceberg.expire-snapshots.min-retention is 7.00d")
        .doesNotContain("\n");

    Run unreachable = resurfacer(
        config("    url: jdbc:trino://127.0.0.1:1\n"),
        "compact",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--yes");
    assertThat(unreachable.exit()).as(unreachable.err()).isEqualTo(2);
    assertThat(unreachable.err())
        .startsWith("error: cannot reach Trino at jdbc:trino://127.0.0.1:1")
        .doesNotContain("\n");

    Run wrongCatalog = resurfacer(
        config("    url: " + LAKE.trino().jdbcUrl() + "\n    catalog: lakehouse\n"),
        "expire",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--older-than",
        "0s",
        "--yes");
    assertThat(wrongCatalog.exit()).as(wrongCatalog.err()).isEqualTo(2);
    assertThat(wrongCatalog.err()).contains("has no catalog 'lakehouse'").doesNotContain("\n");

    Run inline = resurfacer(
        config(engine() + "    password: hunter2-inline\n"),
        "expire",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--yes");
    assertThat(inline.exit()).as(inline.err()).isEqualTo(2);
    assertThat(inline.err())
        .contains("engines.trino.password must be a secret reference")
        .doesNotContain("hunter2");

    Run typo = resurfacer(
        config(engine() + "    catalgo: iceberg\n"),
        "expire",
        "ops.cli_bad",
        "--engine",
        "trino",
        "--yes");
    assertThat(typo.exit()).as(typo.err()).isEqualTo(2);
    assertThat(typo.err()).contains("engines.trino.catalgo");

    assertThat(metadata(t)).isEqualTo(metadata);
  }

  @Test
  void enginesListsTrinosColumn() throws Exception {
    String out = ok(resurfacer(null, "engines"));
    assertThat(out)
        .contains(
            "trino    iceberg  compact",
            "trino    iceberg  remove-dangling-deletes    refused",
            "trino    delta    vacuum                     works",
            "trino    delta    checkpoint                 refused");
  }

  static String metadata(IcebergTable t) {
    t.table().refresh();
    return ((org.apache.iceberg.HasTableOperations) t.table())
        .operations()
        .current()
        .metadataFileLocation();
  }
}
