package dev.resurfacer.delta.vacuum;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.VersionFiles;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26: a Delta log naming its files through another spelling than the listing's — absolute
 * {@code file:} URIs through a link to the root or above it, a hidden-name link inside the table,
 * dot segments, doubled slashes, three spellings of one file, a {@code p} deletion vector, a
 * {@code ..} after a link. The tables are delta-spark's, their JSON commits edited (checkpoints
 * removed, so every reader replays the edited commits); delta-spark reads the rows before and after.
 * Full and lite vacuum at a forced zero retention must keep every file of every version except those
 * the table removed for good — and delete those, and (full mode) a stray file, so a vacuum that
 * deletes nothing fails too.
 */
class DeltaVacuumAliasTest {
  private static final Duration OLD = Duration.ofDays(10);
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final VacuumOptions LITE_ZERO =
      new VacuumOptions(Optional.of(Duration.ZERO), true, true, List.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  /** Edits a copy at {@code root} ({@code <case>/wh/events}); returns the location the table is opened by. */
  @FunctionalInterface
  private interface Edit {
    Path apply(Path root) throws Exception;
  }

  private record Run(DeltaTable table, Path root, VacuumPlan plan, VacuumResult result) {}

  @Test
  void absolutePathsThroughALinkToTheRootNameTheRealFiles() throws Exception {
    inBothModes("alias-paths", root -> {
      Path alias = Files.createSymbolicLink(root.getParent().resolveSibling("alias"), root);
      rewrite(root, p -> "file:" + alias + "/" + p, dv -> dv);
      return root;
    });
  }

  @Test
  void openedThroughTheLinkWithPathsByTheRealRoot() throws Exception {
    inBothModes("alias-opened", root -> {
      Path alias = Files.createSymbolicLink(root.getParent().resolveSibling("alias"), root);
      rewrite(root, p -> "file:" + root + "/" + p, dv -> dv);
      return alias;
    });
  }

  /** Lite's reproduced loss: the older removes name the files relatively, the newest adds through the link. */
  @Test
  void removesRelativeThenTheSameFilesReAddedThroughALink() throws Exception {
    inBothModes("alias-readded", root -> {
      Path alias = Files.createSymbolicLink(root.getParent().resolveSibling("alias"), root);
      Map<String, ObjectNode> adds = lastAdds(root);
      List<String> removes = new ArrayList<>();
      List<String> readds = new ArrayList<>();
      for (String p : livePaths(root)) {
        removes.add(action("remove", removeOf(adds.get(p), p)));
        readds.add(action("add", adds.get(p).deepCopy().put("path", "file:" + alias + "/" + p)));
      }
      append(root, removes);
      append(root, readds);
      return root;
    });
  }

  /**
   * Links with hidden names inside the table: {@code _alias -> part=a b} (live files), {@code _gone ->
   * part=c} (every file removed). Their files are judged where they lie: the live ones kept, the
   * removed ones deleted.
   */
  @Test
  void hiddenNameLinksInsideTheTableToPartitions() throws Exception {
    inBothModes(
        "hidden-link",
        root -> {
          Files.createSymbolicLink(root.resolve("_alias"), Path.of("part=a b"));
          Files.createSymbolicLink(root.resolve("_gone"), Path.of("part=c"));
          rewrite(
              root,
              p -> p.startsWith("part=a%20b/")
                  ? "_alias/" + p.substring("part=a%20b/".length())
                  : p.startsWith("part=c/") ? "_gone/" + p.substring("part=c/".length()) : p,
              dv -> dv);
          return root;
        },
        run -> assertThat(run.plan().deletions())
            .as("files removed under a link's name are deleted where they lie")
            .anyMatch(c -> c.reason() == VacuumPlan.Reason.EXPIRED_TOMBSTONE
                && c.file().path().contains("/part=c/")));
  }

  @Test
  void dotSegmentsAndDoubledSlashes() throws Exception {
    inBothModes(
        "dots",
        root -> {
          Path alias = Files.createSymbolicLink(root.getParent().resolveSibling("alias"), root);
          rewrite(
              root,
              p -> {
                int slash = p.lastIndexOf('/');
                String d = p.substring(0, slash);
                String name = p.substring(slash + 1);
                return switch (Math.floorMod(p.hashCode(), 4)) {
                  case 0 -> d + "/../" + d + "/" + name;
                  case 1 -> d + "//" + name;
                  case 2 -> "file:" + alias + "//" + d + "/./" + name;
                  default -> "file://" + root + "/" + d + "/../" + d + "/" + name;
                };
              },
              dv -> dv);
          return root;
        },
        run -> {
          // Hadoop refuses file://localhost/ (Wrong FS), so no delta-spark table holds it; it is
          // still this machine's file
          String x = LiveFiles.of(run.table(), run.table().latest()).get(0).logPath();
          String abs = "file://localhost"
              + URI.create(x.startsWith("file:") ? x : "file:" + run.root() + "/" + x)
                  .getRawPath();
          assertThat(run.table().storage().resolve(abs))
              .isEqualTo(run.table().storage().resolve(x));
        });
  }

  /** One live file spelled {@code file:/} when added, {@code file:///} when removed, a bare path when added again. */
  @Test
  void oneFileSpelledFileSlashTripleSlashAndBare() throws Exception {
    inBothModes("spellings", root -> {
      String x = livePaths(root).get(0);
      rewrite(root, p -> p.equals(x) ? "file:" + root + "/" + p : p, dv -> dv);
      ObjectNode add = lastAdds(root).get("file:" + root + "/" + x);
      append(root, List.of(action("remove", removeOf(add, "file://" + root + "/" + x))));
      append(root, List.of(action("add", add.deepCopy().put("path", root + "/" + x))));
      return root;
    });
  }

  @Test
  void pathDeletionVectorsThroughALinkToTheRoot() throws Exception {
    inBothModes("dv-p", root -> {
      Path alias = Files.createSymbolicLink(root.getParent().resolveSibling("alias"), root);
      rewrite(
          root,
          p -> p,
          dv -> !dv.get("storageType").asText().equals("u")
              ? dv
              : dv.deepCopy()
                  .put("storageType", "p")
                  .put(
                      "pathOrInlineDv",
                      "file:" + alias + "/"
                          + KernelInternals.uuidDeletionVectorRelativePath(
                              dv.get("pathOrInlineDv").asText())));
      assertThat(Files.readString(root.resolve("_delta_log/00000000000000000007.json")))
          .contains("\"storageType\":\"p\"");
      return root;
    });
  }

  /**
   * {@code lnk/../part=a%20b/f} with {@code lnk -> deep/sub}: Delta's readers open {@code part=a b/f},
   * the kernel's {@code ..} leads to {@code deep/part=a b/f}. Both are kept.
   */
  @Test
  void aDotDotAfterALinkKeepsBothMeanings() throws Exception {
    Map<Path, Path> otherMeaning = new HashMap<>();
    inBothModes(
        "dotdot-link",
        root -> {
          String x = livePaths(root).stream()
              .filter(p -> p.startsWith("part=a%20b/"))
              .findFirst()
              .orElseThrow();
          Files.createDirectories(root.resolve("deep/sub"));
          Files.createSymbolicLink(root.resolve("lnk"), Path.of("deep/sub"));
          String decoded = URI.create(x).getPath();
          Path physical = Files.createDirectories(
                  root.resolve("deep").resolve(decoded).getParent())
              .resolve(Path.of(decoded).getFileName());
          Files.copy(root.resolve(decoded), physical);
          otherMeaning.put(root, physical);
          rewrite(root, p -> p.equals(x) ? "lnk/../" + p : p, dv -> dv);
          return root;
        },
        run -> {
          assertThat(run.plan().deletions())
              .noneMatch(
                  c -> c.file().path().equals(otherMeaning.get(run.root()).toString()));
          assertThat(otherMeaning.get(run.root())).isRegularFile();
        });
  }

  /** A link above the root: the log names every file through {@code wh-link/events}. */
  @Test
  void absolutePathsThroughALinkOverTheRoot() throws Exception {
    inBothModes("over-root", root -> {
      Path whLink =
          Files.createSymbolicLink(root.getParent().resolveSibling("wh-link"), root.getParent());
      rewrite(root, p -> "file:" + whLink.resolve(root.getFileName()) + "/" + p, dv -> dv);
      return root;
    });
  }

  private void inBothModes(String name, Edit edit) throws Exception {
    inBothModes(name, edit, run -> {});
  }

  private void inBothModes(String name, Edit edit, java.util.function.Consumer<Run> check)
      throws Exception {
    for (boolean lite : new boolean[] {true, false}) {
      check.accept(vacuum(name + (lite ? "-lite" : "-full"), lite, edit));
    }
  }

  private Run vacuum(String name, boolean lite, Edit edit) throws Exception {
    Path root = TestTables.copy(source, dir.toRealPath().resolve(name).resolve("wh/events"));
    stripCheckpointsAndChecksums(root);
    Set<Path> removedForGood =
        VersionFiles.removedForGood(DeltaTables.open("pristine", root.toString(), dir));
    Path opened = edit.apply(root);
    TestTables.ageData(root, OLD);
    Path stray = TestTables.write(root.resolve("part=a b/part-00000-stray.snappy.parquet"), OLD);
    List<String> rows = DeltaSpark.rows(opened);
    // opened after the edit: the table's resolver caches directories' real paths, and the edit made
    // links
    DeltaTable table = DeltaTables.open("raw.events", opened.toString(), dir);
    VacuumOptions options = lite ? LITE_ZERO : ZERO;

    VacuumPlan plan = DeltaVacuum.plan(table, options, Clock.systemUTC());
    VacuumResult result = DeltaVacuum.execute(table, plan, options, Clock.systemUTC());

    VersionFiles.assertEveryFileOfEveryVersionExists(table, removedForGood);
    assertThat(DeltaSpark.rows(opened)).as(name).isEqualTo(rows);
    assertThat(removedForGood)
        .as(name)
        .isNotEmpty()
        .allMatch(p -> !Files.exists(p, LinkOption.NOFOLLOW_LINKS));
    assertThat(Files.exists(stray))
        .as(name + ": the stray file, only full mode lists it")
        .isEqualTo(lite);
    assertThat(result.deleted())
        .as(name)
        .isEqualTo(plan.deletions().size())
        .isEqualTo(removedForGood.size() + (lite ? 0 : 1));
    return new Run(table, root, plan, result);
  }

  private static Path log(Path root) {
    return root.resolve("_delta_log");
  }

  /** Checkpoints would let readers skip the edited commits; checksums (Hadoop's and Delta's) would no longer match them. */
  private static void stripCheckpointsAndChecksums(Path root) throws IOException {
    try (Stream<Path> s = Files.list(log(root))) {
      for (Path p : s.toList()) {
        String n = p.getFileName().toString();
        if (n.contains(".checkpoint") || n.equals("_last_checkpoint") || n.endsWith(".crc")) {
          Files.delete(p);
        }
      }
    }
  }

  private static List<Path> commits(Path root) throws IOException {
    try (Stream<Path> s = Files.list(log(root))) {
      return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
          .sorted()
          .toList();
    }
  }

  /** Every add and remove of every commit: its path through {@code path}, its deletion vector through {@code dv}. */
  private static void rewrite(Path root, UnaryOperator<String> path, UnaryOperator<ObjectNode> dv)
      throws IOException {
    for (Path commit : commits(root)) {
      List<String> out = new ArrayList<>();
      for (String line : Files.readAllLines(commit)) {
        ObjectNode a = (ObjectNode) JSON.readTree(line);
        for (String kind : List.of("add", "remove")) {
          if (a.get(kind) instanceof ObjectNode f) {
            f.put("path", path.apply(f.get("path").asText()));
            if (f.get("deletionVector") instanceof ObjectNode d) {
              f.set("deletionVector", dv.apply(d));
            }
          }
        }
        out.add(JSON.writeValueAsString(a));
      }
      Files.write(commit, out);
    }
  }

  private static void append(Path root, List<String> actions) throws IOException {
    List<Path> commits = commits(root);
    String last = commits.get(commits.size() - 1).getFileName().toString();
    long next = Long.parseLong(last.substring(0, 20)) + 1;
    Files.write(log(root).resolve(String.format("%020d.json", next)), actions);
  }

  /** The last add of each path: for a live file, the action that makes it live. */
  private static Map<String, ObjectNode> lastAdds(Path root) throws IOException {
    Map<String, ObjectNode> out = new HashMap<>();
    for (Path commit : commits(root)) {
      for (String line : Files.readAllLines(commit)) {
        if (JSON.readTree(line).get("add") instanceof ObjectNode add) {
          out.put(add.get("path").asText(), add);
        }
      }
    }
    return out;
  }

  private static List<String> livePaths(Path root) {
    DeltaTable t = DeltaTables.open("pristine", root.toString(), root);
    return LiveFiles.of(t, t.latest()).stream().map(LiveFile::logPath).sorted().toList();
  }

  /** A remove of the file {@code add} made live, long ago, under {@code path}, with its deletion vector. */
  private static ObjectNode removeOf(ObjectNode add, String path) {
    ObjectNode remove = JSON.createObjectNode()
        .put("path", path)
        .put("deletionTimestamp", 1000L)
        .put("dataChange", true)
        .put("extendedFileMetadata", true)
        .put("size", add.get("size").asLong());
    remove.set("partitionValues", add.get("partitionValues"));
    JsonNode dv = add.get("deletionVector");
    if (dv != null && !dv.isNull()) {
      remove.set("deletionVector", dv);
    }
    return remove;
  }

  private static String action(String kind, ObjectNode body) throws IOException {
    return JSON.writeValueAsString(JSON.createObjectNode().set(kind, body));
  }
}
