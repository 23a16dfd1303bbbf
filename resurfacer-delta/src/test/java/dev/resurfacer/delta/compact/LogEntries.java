package dev.resurfacer.delta.compact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.DeltaSpark;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What a Delta table's JSON commits and data files say, read directly: the tests' view of what a writer wrote. */
final class LogEntries {
  static final ObjectMapper JSON = new ObjectMapper();

  private LogEntries() {}

  static long latestVersion(Path t) throws IOException {
    try (var s = Files.list(t.resolve("_delta_log"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
          .max()
          .orElseThrow();
    }
  }

  /** Every action of one commit. */
  static List<JsonNode> actions(Path t, long version) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line :
        Files.readAllLines(t.resolve("_delta_log").resolve(String.format("%020d.json", version)))) {
      out.add(JSON.readTree(line));
    }
    return out;
  }

  static List<JsonNode> adds(Path t, long version) throws IOException {
    return actions(t, version).stream()
        .filter(a -> a.has("add"))
        .map(a -> a.get("add"))
        .toList();
  }

  static List<JsonNode> removes(Path t, long version) throws IOException {
    return actions(t, version).stream()
        .filter(a -> a.has("remove"))
        .map(a -> a.get("remove"))
        .toList();
  }

  /** The data files a commit adds, on disk. */
  static List<Path> addedFiles(Path t, long version) throws IOException {
    return adds(t, version).stream()
        .map(a -> t.resolve(URLDecoder.decode(a.get("path").asText(), StandardCharsets.UTF_8)))
        .toList();
  }

  static JsonNode stats(JsonNode add) throws IOException {
    return JSON.readTree(add.get("stats").asText());
  }

  /** The dotted key paths of a stats object ({@code minValues}, …), nested structs included. */
  static Set<String> keyPaths(JsonNode n) {
    Set<String> out = new TreeSet<>();
    keyPaths(n, "", out);
    return out;
  }

  private static void keyPaths(JsonNode n, String prefix, Set<String> out) {
    if (n == null) {
      return;
    }
    n.fields().forEachRemaining(e -> {
      out.add(prefix + e.getKey());
      if (e.getValue().isObject()) {
        keyPaths(e.getValue(), prefix + e.getKey() + ".", out);
      }
    });
  }

  /** Every column of a Parquet file's schema (the root, named by each writer, left out): name, field id, physical type, repetition. */
  static List<String> parquetSchema(Path file) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet r =
            st.executeQuery("SELECT name, field_id, type, repetition_type FROM parquet_schema('"
                + file.toString().replace("'", "''") + "')")) {
      r.next();
      while (r.next()) {
        out.add(
            r.getString(1) + " id=" + r.getString(2) + " " + r.getString(3) + " " + r.getString(4));
      }
    }
    return out;
  }

  /** The operation of the table's latest commit as Spark's {@code DESCRIBE HISTORY} shows it. */
  static String lastOperation(Path t) {
    return DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(t) + " LIMIT 1")
        .collectAsList()
        .get(0)
        .getAs("operation");
  }
}
