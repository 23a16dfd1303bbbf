package dev.resurfacer.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.iceberg.catalog.Catalogs;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The run {@code bin/resurfacer} archives the loaded classes of (class-data sharing), in a throwaway
 * directory: what the short verbs load, or with {@code --long} what the long ones do. One process
 * runs several command lines because an archive holds what one JVM loaded: the describe of an empty
 * catalog it used before left out the help renderer, the configuration file's parser and the whole
 * health computation (2,100 classes then came from the jar: about a fifth of a describe's CPU).
 */
@Command(
    name = "__train-archive",
    hidden = true,
    footer = {
      "%nExamples:",
      "  resurfacer __train-archive /tmp/train           # what bin/resurfacer runs once per build"
    },
    description =
        "For bin/resurfacer: run the verbs whose classes the class-data archive should hold, on a throwaway table in DIR.")
final class ArchiveTrainingCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Parameters(
      paramLabel = "DIR",
      description = "A throwaway directory (created; its contents are replaced).")
  Path dir;

  @Option(
      names = "--long",
      description =
          "Train the long verbs' archive (a one-day demo: ingest, compact, expire; a compaction of a small Delta table).")
  boolean longVerbs;

  ArchiveTrainingCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    Path root = ctx.workingDir().resolve(dir).toAbsolutePath().normalize();
    Files.createDirectories(root);
    List<List<String>> runs = new ArrayList<>();
    runs.add(List.of("--help"));
    runs.add(List.of("describe", "--help"));
    Path config = root.resolve("resurfacer.yml");
    if (longVerbs) {
      Path demo = root.resolve("demo");
      runs.add(List.of("demo", "--days", "1", "--dir", demo.toString()));
      writeConfig(config, CatalogSelection.embedded("train", demo));
      runs.add(List.of("compact", "shop.orders", "--config", config.toString(), "--yes"));
      String delta = createDeltaTable(root.resolve("delta")).toString();
      runs.add(List.of("compact", delta, "--yes"));
    } else {
      CatalogConfig catalog = CatalogSelection.embedded("train", root.resolve("catalog"));
      createTable(catalog);
      writeConfig(config, catalog);
      String table = "db.t";
      runs.add(List.of("describe", table, "--config", config.toString()));
      runs.add(List.of("describe", table, "--config", config.toString(), "--output", "json"));
      runs.add(List.of("plan", table, "--config", config.toString()));
      String delta = createDeltaTable(root.resolve("delta")).toString();
      runs.add(List.of("describe", delta));
      runs.add(List.of("describe", delta, "--output", "json"));
    }
    PrintWriter discard =
        new PrintWriter(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
    for (List<String> run : runs) {
      // a training run that fails still archived what it loaded; the next one runs regardless
      Main.commandLine(ctx).setOut(discard).setErr(discard).execute(run.toArray(String[]::new));
    }
    return Main.OK;
  }

  private static void writeConfig(Path config, CatalogConfig catalog) throws IOException {
    Files.writeString(
        config,
        "catalogs:\n  train: {type: jdbc, uri: \"" + catalog.uri() + "\", warehouse: \""
            + catalog.warehouse() + "\"}\n",
        StandardCharsets.UTF_8);
  }

  /**
   * A small Delta table: one commit of four Parquet files of 50 rows. Without it a Delta verb loaded
   * 2,755 classes from the jar (Delta Kernel, its Parquet and JSON readers): a describe of a
   * 36,000-row table cost 2.8 CPU-s.
   */
  private static Path createDeltaTable(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("_delta_log"));
    Schema schema = new Schema(
        Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "v", Types.StringType.get()));
    ObjectMapper json = new ObjectMapper();
    String deltaSchema = json.writeValueAsString(Map.of(
        "type",
        "struct",
        "fields",
        List.of(
            Map.of("name", "id", "type", "long", "nullable", true, "metadata", Map.of()),
            Map.of("name", "v", "type", "string", "nullable", true, "metadata", Map.of()))));
    List<Object> actions = new ArrayList<>();
    actions.add(Map.of("protocol", Map.of("minReaderVersion", 1, "minWriterVersion", 2)));
    actions.add(Map.of(
        "metaData",
        Map.of(
            "id",
            UUID.randomUUID().toString(),
            "format",
            Map.of("provider", "parquet", "options", Map.of()),
            "schemaString",
            deltaSchema,
            "partitionColumns",
            List.of(),
            "configuration",
            Map.of(),
            "createdTime",
            System.currentTimeMillis())));
    for (int file = 0; file < 4; file++) {
      Path data = dir.resolve("part-" + file + ".parquet");
      try (FileAppender<Record> out = Parquet.write(
              org.apache.iceberg.Files.localOutput(data.toFile()))
          .schema(schema)
          .createWriterFunc(GenericParquetWriter::create)
          .build()) {
        GenericRecord row = GenericRecord.create(schema);
        for (long id = file * 50L; id < (file + 1) * 50L; id++) {
          out.add(row.copy(Map.of("id", id, "v", "v" + id)));
        }
      }
      actions.add(Map.of(
          "add",
          Map.of(
              "path",
              data.getFileName().toString(),
              "partitionValues",
              Map.of(),
              "size",
              Files.size(data),
              "modificationTime",
              System.currentTimeMillis(),
              "dataChange",
              true,
              "stats",
              "{\"numRecords\":50}")));
    }
    StringBuilder log = new StringBuilder();
    for (Object action : actions) {
      log.append(json.writeValueAsString(action)).append('\n');
    }
    Files.writeString(
        dir.resolve("_delta_log/00000000000000000000.json"), log, StandardCharsets.UTF_8);
    return dir;
  }

  /** A partitioned table with a few commits of files that exist only in its metadata: describe and plan read no data file. */
  private static void createTable(CatalogConfig config) throws Exception {
    Catalog catalog = Catalogs.open(config);
    try {
      if (catalog instanceof SupportsNamespaces ns) {
        ns.createNamespace(Namespace.of("db"));
      }
      Schema schema = new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "name", Types.StringType.get()));
      PartitionSpec spec = PartitionSpec.builderFor(schema).day("ts").build();
      Table table = catalog.createTable(TableIdentifier.of("db", "t"), schema, spec);
      for (int commit = 0; commit < 3; commit++) {
        var append = table.newAppend();
        for (int file = 0; file < 4; file++) {
          DataFile data = DataFiles.builder(spec)
              .withPath(table.location() + "/data/ts_day=2026-01-0" + (commit + 1) + "/f" + file
                  + ".parquet")
              .withPartitionPath("ts_day=2026-01-0" + (commit + 1))
              .withFormat("parquet")
              .withFileSizeInBytes(4096)
              .withRecordCount(100)
              .build();
          append.appendFile(data);
        }
        append.commit();
      }
    } finally {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }
}
