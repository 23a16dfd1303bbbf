package dev.resurfacer.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** A Delta log whose file paths are written in other spellings: the alias attacks on object stores. */
public final class LogSpellings {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LogSpellings() {}

  /**
   * delta-spark's shallow clone of {@code src} at {@code clone}, then {@code src} OPTIMIZEd so the
   * files the clone reads are tombstones there; the clone's absolute paths into {@code src} are
   * rewritten to {@code spell} of their path relative to {@code src}. Returns those relative paths,
   * decoded as storage names them.
   */
  public static java.util.Set<String> shallowCloneThenOptimize(
      Path src, Path clone, UnaryOperator<String> spell) throws IOException {
    DeltaSpark.sql(
        "CREATE TABLE " + DeltaSpark.table(clone) + " SHALLOW CLONE " + DeltaSpark.table(src));
    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(src));
    java.util.Set<String> reads = new java.util.TreeSet<>();
    String srcPrefix = "/" + src.getParent().getFileName() + "/" + src.getFileName() + "/";
    respell(clone, List.of(p -> {
      if (!p.startsWith("file:")) {
        return p;
      }
      String path = p.substring(p.lastIndexOf(srcPrefix) + srcPrefix.length());
      reads.add(dev.resurfacer.storage.StoredFile.parse("s3://b/" + path).path().substring(1));
      return spell.apply(path);
    }));
    return reads;
  }

  /** An Iceberg table written by Iceberg Java (a SQLite catalog under {@code warehouse}); returns its root directory. */
  public static Path icebergTable(Path warehouse) {
    Path root = warehouse.resolve("orders");
    try (var catalog = dev.resurfacer.iceberg.testing.SqliteCatalogs.create("lake", warehouse)) {
      catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
      var t = catalog
          .buildTable(
              org.apache.iceberg.catalog.TableIdentifier.of("db", "orders"),
              dev.resurfacer.iceberg.testing.Orders.SCHEMA)
          .withPartitionSpec(dev.resurfacer.iceberg.testing.Orders.SPEC)
          .withLocation(root.toString())
          .withProperty("format-version", "2")
          .create();
      var append = t.newAppend();
      dev.resurfacer.iceberg.write.TableWrites.writeData(
              t, dev.resurfacer.iceberg.testing.Orders.rows(0, 10, 0))
          .forEach(append::appendFile);
      append.commit();
    }
    return root;
  }

  /**
   * Each add and remove path of every JSON commit through one of {@code spellings}, picked by the
   * path (a file's add and its remove get the same one: readers match the two as text), and each
   * absolute deletion vector's path likewise; checkpoints dropped so every reader replays the edited
   * commits.
   */
  public static void respell(Path root, List<UnaryOperator<String>> spellings) throws IOException {
    Path log = root.resolve("_delta_log");
    try (Stream<Path> s = Files.list(log)) {
      for (Path f : s.toList()) {
        String name = f.getFileName().toString();
        if (name.contains("checkpoint")) {
          Files.delete(f);
          continue;
        }
        if (!name.endsWith(".json")) {
          if (name.endsWith(".crc")) {
            Files.delete(f);
          }
          continue;
        }
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          JsonNode action = JSON.readTree(line);
          for (String kind : List.of("add", "remove")) {
            if (action.has(kind)) {
              ObjectNode a = (ObjectNode) action.get(kind);
              String path = a.get("path").asText();
              a.put(
                  "path",
                  spellings
                      .get(Math.floorMod(path.hashCode(), spellings.size()))
                      .apply(path));
              JsonNode dv = a.get("deletionVector");
              if (dv != null && "p".equals(dv.path("storageType").asText())) {
                String dvPath = dv.get("pathOrInlineDv").asText();
                ((ObjectNode) dv)
                    .put(
                        "pathOrInlineDv",
                        spellings
                            .get(Math.floorMod(dvPath.hashCode(), spellings.size()))
                            .apply(dvPath));
              }
            }
          }
          out.add(JSON.writeValueAsString(action));
        }
        Files.write(f, out, StandardCharsets.UTF_8);
      }
    }
  }
}
