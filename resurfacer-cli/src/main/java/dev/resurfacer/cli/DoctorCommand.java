package dev.resurfacer.cli;

import dev.resurfacer.capabilities.Capabilities;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.engines.CapabilityTable;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.iceberg.catalog.Catalogs;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import picocli.CommandLine.Command;

@Command(
    name = "doctor",
    footer = {"%nExamples:", "  resurfacer doctor", "  resurfacer doctor --catalog prod"},
    description =
        "Check the environment: versions, catalog, warehouse, DuckDB, and what this build can do.")
final class DoctorCommand extends CatalogCommand {
  DoctorCommand(CliContext ctx) {
    super(ctx);
  }

  record Check(String name, boolean ok, String detail) {}

  record Report(List<Check> checks, List<Capabilities.Capability> capabilities) {}

  @Override
  public Integer call() {
    List<Check> checks = new ArrayList<>();
    checks.add(new Check(
        "java",
        true,
        System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"));
    checks.add(new Check("resurfacer", true, Versions.resurfacer()));
    checks.add(new Check("iceberg", true, Versions.iceberg()));
    checks.add(duckdb());
    CatalogConfig config = null;
    try {
      config = catalogOptions.resolve(ctx);
    } catch (RuntimeException e) {
      checks.add(new Check("configuration", false, e.getMessage()));
    }
    if (config != null) {
      checks.add(new Check(
          "configuration",
          true,
          "catalog '" + config.name() + "' (" + config.type() + ") " + config.redactedUri()));
    }
    java.util.Optional<java.nio.file.Path> missingSqlite =
        config == null ? java.util.Optional.empty() : missingSqliteFile(config.uri());
    if (missingSqlite.isPresent()) {
      // opening a SQLite catalog creates its file and directories: a check must leave nothing
      // behind
      checks.add(new Check(
          "catalog",
          true,
          missingSqlite.get() + " does not exist yet (created on first use; not opened)"));
      checks.add(warehouse(null, config));
    } else if (config != null) {
      Catalog catalog = null;
      try {
        catalog = Catalogs.open(config);
        String detail = "reachable";
        if (catalog instanceof SupportsNamespaces ns) {
          detail += ", " + ns.listNamespaces().size() + " top-level namespaces";
        }
        checks.add(new Check("catalog", true, detail));
        checks.add(warehouse(catalog, config));
      } catch (RuntimeException e) {
        checks.add(new Check("catalog", false, Catalogs.rootMessage(e)));
      } finally {
        if (catalog instanceof AutoCloseable c) {
          try {
            c.close();
          } catch (Exception ignored) {
            // closing a catalog we only probed; nothing to report
          }
        }
      }
    }
    Report report = new Report(checks, Capabilities.all());
    PrintWriter out = spec.commandLine().getOut();
    if (outputOptions.json()) {
      out.println(Json.write(report));
    } else {
      for (Check c : checks) {
        out.printf(Locale.ROOT, "%-4s %-14s %s%n", c.ok() ? "ok" : "FAIL", c.name(), c.detail());
      }
      out.println();
      out.println("capabilities on this build:");
      for (Capabilities.Capability c : report.capabilities()) {
        out.printf(
            Locale.ROOT,
            "  %-32s %-8s %s%n",
            c.operation(),
            c.status().name().toLowerCase(Locale.ROOT).replace('_', ' '),
            c.note());
      }
      CapabilityTable engines = CapabilityTable.of(ExecutionEngines.capabilities());
      out.println();
      out.println("operations by format and engine (resurfacer engines gives the reasons):");
      out.printf(
          Locale.ROOT,
          "  %-8s %-26s%s%n",
          "FORMAT",
          "OPERATION",
          engines.engines().stream()
              .map(e -> String.format(Locale.ROOT, " %-24s", e))
              .collect(java.util.stream.Collectors.joining()));
      for (CapabilityTable.Row r : engines.rows()) {
        out.printf(
            Locale.ROOT,
            "  %-8s %-26s%s%n",
            r.format(),
            r.operation(),
            r.cells().stream()
                .map(cell -> String.format(Locale.ROOT, " %-24s", cell))
                .collect(java.util.stream.Collectors.joining()));
      }
    }
    out.flush();
    return checks.stream().allMatch(Check::ok) ? Main.OK : Main.FAILED;
  }

  private static Check duckdb() {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        ResultSet rs = c.createStatement().executeQuery("select version()")) {
      rs.next();
      return new Check("duckdb", true, rs.getString(1) + " (native library loaded)");
    } catch (Exception | LinkageError e) {
      return new Check("duckdb", false, "native library did not load: " + Catalogs.rootMessage(e));
    }
  }

  /** The file of a {@code jdbc:sqlite:} catalog that does not exist yet, or empty. */
  static java.util.Optional<java.nio.file.Path> missingSqliteFile(String uri) {
    if (uri == null || !uri.startsWith("jdbc:sqlite:")) {
      return java.util.Optional.empty();
    }
    String file = uri.substring("jdbc:sqlite:".length());
    int query = file.indexOf('?');
    file = query < 0 ? file : file.substring(0, query);
    if (file.isEmpty() || file.equals(":memory:") || file.startsWith("file:")) {
      return java.util.Optional.empty();
    }
    java.nio.file.Path path = java.nio.file.Path.of(file).toAbsolutePath().normalize();
    return java.nio.file.Files.exists(path)
        ? java.util.Optional.empty()
        : java.util.Optional.of(path);
  }

  private static Check warehouse(Catalog catalog, CatalogConfig config) {
    if (config.warehouse() == null) {
      return new Check("warehouse", true, "managed by the catalog (not probed)");
    }
    boolean local = !(config.warehouse().contains("://") || config.warehouse().startsWith("file:"));
    String base = local
        ? java.nio.file.Path.of(config.warehouse()).toAbsolutePath().normalize().toString()
        : config.warehouse();
    if (local && !java.nio.file.Files.isDirectory(java.nio.file.Path.of(base))) {
      // the probe would create the directory: report instead of creating it
      return new Check(
          "warehouse", true, base + " does not exist yet (created on first write; not probed)");
    }
    String probe =
        (base.endsWith("/") ? base : base + "/") + ".resurfacer-doctor-" + UUID.randomUUID();
    FileIO io = org.apache.iceberg.CatalogUtil.loadFileIO(
        "org.apache.iceberg.io.ResolvingFileIO", config.properties(), Catalogs.localHadoopConf());
    try (io) {
      OutputFile out = io.newOutputFile(probe);
      try (PositionOutputStream s = out.createOrOverwrite()) {
        s.write(new byte[] {1});
      }
      long len = io.newInputFile(probe).getLength();
      io.deleteFile(probe);
      return new Check("warehouse", len == 1, base + " readable and writable");
    } catch (Exception e) {
      return new Check("warehouse", false, base + ": " + Catalogs.rootMessage(e));
    }
  }
}
